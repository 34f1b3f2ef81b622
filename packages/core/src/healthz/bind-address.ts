/**
 * Parses the `host:port` bind addresses of the metrics and health-probe endpoints, with controller-runtime's
 * conventions: "0" or "" turns the endpoint off, `:8080` listens on every interface, port 0 picks a free port.
 */
import { BindAddressInvalidError } from './errors.js';

export interface BindAddress {
  /** Host to listen on; undefined means every interface. */
  host: string | undefined;
  port: number;
}

/** The address to listen on, or undefined when the endpoint is off. */
export function parseBindAddress(address: string | undefined): BindAddress | undefined {
  if (address === undefined) return undefined;
  const text = address.trim();
  if (text === '' || text === '0') return undefined;
  const colon = text.lastIndexOf(':');
  if (colon < 0) throw new BindAddressInvalidError(address, 'expected host:port or :port');
  let host = text.slice(0, colon);
  const portText = text.slice(colon + 1);
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new BindAddressInvalidError(address, 'port must be a number from 0 to 65535');
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  else if (host.includes(':')) throw new BindAddressInvalidError(address, 'write IPv6 hosts in brackets, e.g. [::1]:8080');
  if (/[\s/]/.test(host)) throw new BindAddressInvalidError(address, 'host contains spaces or slashes');
  return { host: host === '' ? undefined : host, port: Number(portText) };
}

/** Formats a listening address as a `host:port` string usable in a URL. */
export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
