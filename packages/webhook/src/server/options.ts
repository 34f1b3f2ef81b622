/** Options of the webhook server, their defaults, and their validation (a bad option fails at construction). */
import type { ClusterName, Logger } from '@multicluster-runtime/core';
import type { ClusterSource } from '../cluster/resolve.js';
import { WebhookOptionsError } from '../errors.js';
import type { RegistryLike } from '../metrics/webhook-metrics.js';

/**
 * Options of {@link WebhookServer}: address, certificate files, how members are told apart, limits and metrics.
 */
export interface WebhookServerOptions {
  /** PEM serving certificate (with its chain) and private key; re-read when they change. */
  certFile: string;
  keyFile: string;
  /** PEM CA bundle: when set, clients (the API servers) must present a certificate it signed. */
  clientCAFile?: string;
  /** Address to listen on. Default: every interface. */
  host?: string;
  /** Default 9443 (as controller-runtime); 0 picks a free port. */
  port?: number;
  /** Default 'TLSv1.2'. */
  tlsMinVersion?: 'TLSv1.2' | 'TLSv1.3';
  /** Largest request body accepted (413 beyond). Default 7 MiB (as controller-runtime). */
  maxBodyBytes?: number;
  /** How long a handler may run before its webhook's failurePolicy answers. Default 10 s (the API server's default). */
  timeoutMs?: number;
  /**
   * Where a review's member name may come from, in order of precedence. Default ['path']. Add 'kcp' when every
   * member is a kcp logical cluster and 'milo' when members are Milo projects: those names are only as trustworthy
   * as the API server that sets them (on a plain API server a user writes annotations and may impersonate extras).
   */
  clusterSources?: readonly ClusterSource[];
  /** Maps a name found in a source to the fleet's name (e.g. a provider-multi prefix). Default: unchanged. */
  clusterName?: (source: ClusterSource, value: string) => ClusterName;
  /**
   * A review for a member that is not engaged: 'deny' answers a denial (the write is rejected whatever the member's
   * failurePolicy), 'error' answers HTTP 404 so the member's failurePolicy decides. Default 'deny'.
   */
  unknownCluster?: 'deny' | 'error';
  /** How long stopping waits for reviews in flight. Default `timeoutMs` + 5 s. */
  shutdownTimeoutMs?: number;
  /** Default: the manager's logger. */
  logger?: Logger;
  /** Where metrics go. Default: the manager's Prometheus registry, else a registry of the server's own (`registry`). */
  registry?: RegistryLike;
}

export interface ResolvedServerOptions {
  readonly certFile: string;
  readonly keyFile: string;
  readonly clientCAFile: string | undefined;
  readonly host: string | undefined;
  readonly port: number;
  readonly tlsMinVersion: 'TLSv1.2' | 'TLSv1.3';
  readonly maxBodyBytes: number;
  readonly timeoutMs: number;
  readonly clusterSources: ReadonlySet<ClusterSource>;
  readonly clusterName: (source: ClusterSource, value: string) => ClusterName;
  readonly unknownCluster: 'deny' | 'error';
  readonly shutdownTimeoutMs: number;
}

const SOURCES: readonly ClusterSource[] = ['path', 'kcp', 'milo'];

function positive(name: string, v: number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!(typeof v === 'number' && Number.isFinite(v) && v > 0))
    throw new WebhookOptionsError(`${name} must be a positive number, got ${String(v)}`);
  return v;
}

export function resolveServerOptions(o: WebhookServerOptions): ResolvedServerOptions {
  if (!o || typeof o !== 'object') throw new WebhookOptionsError('webhook server options are required');
  for (const f of ['certFile', 'keyFile'] as const)
    if (typeof o[f] !== 'string' || o[f] === '') throw new WebhookOptionsError(`${f} is required (a PEM file path)`);
  if (o.clientCAFile !== undefined && (typeof o.clientCAFile !== 'string' || o.clientCAFile === ''))
    throw new WebhookOptionsError('clientCAFile must be a file path');
  const port = o.port ?? 9443;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new WebhookOptionsError(`port must be an integer in 0..65535, got ${String(port)}`);
  const tlsMinVersion = o.tlsMinVersion ?? 'TLSv1.2';
  if (tlsMinVersion !== 'TLSv1.2' && tlsMinVersion !== 'TLSv1.3')
    throw new WebhookOptionsError(`tlsMinVersion must be "TLSv1.2" or "TLSv1.3", got ${JSON.stringify(tlsMinVersion)}`);
  const sources: readonly unknown[] = o.clusterSources ?? ['path'];
  if (!Array.isArray(sources)) throw new WebhookOptionsError('clusterSources must be a list');
  for (const s of sources)
    if (!SOURCES.includes(s as ClusterSource))
      throw new WebhookOptionsError(`clusterSources: unknown source ${JSON.stringify(s)} (known: ${SOURCES.join(', ')})`);
  const unknownCluster = o.unknownCluster ?? 'deny';
  if (unknownCluster !== 'deny' && unknownCluster !== 'error')
    throw new WebhookOptionsError(`unknownCluster must be "deny" or "error", got ${JSON.stringify(unknownCluster)}`);
  if (o.clusterName !== undefined && typeof o.clusterName !== 'function') throw new WebhookOptionsError('clusterName must be a function');
  const timeoutMs = positive('timeoutMs', o.timeoutMs, 10_000);
  return {
    certFile: o.certFile,
    keyFile: o.keyFile,
    clientCAFile: o.clientCAFile,
    host: o.host,
    port,
    tlsMinVersion,
    maxBodyBytes: positive('maxBodyBytes', o.maxBodyBytes, 7 * 1024 * 1024),
    timeoutMs,
    clusterSources: new Set(sources as ClusterSource[]),
    clusterName: o.clusterName ?? ((_source, value) => value),
    unknownCluster,
    shutdownTimeoutMs: positive('shutdownTimeoutMs', o.shutdownTimeoutMs, timeoutMs + 5_000),
  };
}
