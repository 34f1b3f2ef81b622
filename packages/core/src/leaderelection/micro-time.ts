/**
 * Kubernetes MicroTime (`2026-01-02T03:04:05.000000Z`): RFC 3339 with exactly six fraction digits, which Lease
 * `acquireTime` and `renewTime` require (the API server rejects the millisecond form JavaScript prints).
 */

/** Formats a Date as MicroTime (JavaScript has millisecond precision, so the last three digits are 0). */
export function formatMicroTime(date: Date): string {
  const iso = date.toISOString(); // 2026-01-02T03:04:05.123Z
  return `${iso.slice(0, 23)}000Z`;
}

/** Parses MicroTime or any RFC 3339 timestamp; undefined when absent or malformed. */
export function parseMicroTime(text: string | undefined | null): Date | undefined {
  if (!text) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}
