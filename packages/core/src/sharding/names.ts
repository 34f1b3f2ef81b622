/**
 * Lease names for peers and fences. Cluster names and replica IDs are free text (`path+context`, `provider#cluster`,
 * `ns/name`) while a Lease name must be a DNS-1123 subdomain. Sanitizing alone would give distinct clusters such as
 * `a_b` and `a-b` one fence, and long names would be rejected by the API server, so any name that had to change, or
 * is too long, gets a hash suffix of the original, which keeps names distinct and within 63 characters.
 */
import { createHash } from 'node:crypto';

const maxLength = 63;
const hashLength = 10;

/** Lowercase, characters outside [a-z0-9.-] become `-`, trimmed to start and end alphanumeric. */
export function sanitizeDns1123(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/[^a-z0-9]+$/, '');
}

/** `<prefix>-<text>` as a valid Lease name, unique per `text` and at most 63 characters. */
export function leaseName(prefix: string, text: string): string {
  const clean = sanitizeDns1123(text);
  const plain = `${prefix}-${clean}`;
  if (clean === text && clean !== '' && plain.length <= maxLength) return plain;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, hashLength);
  const room = maxLength - prefix.length - hashLength - 2;
  const stem = clean.slice(0, Math.max(0, room)).replace(/[^a-z0-9]+$/, '');
  return stem ? `${prefix}-${stem}-${hash}` : `${prefix}-${hash}`;
}
