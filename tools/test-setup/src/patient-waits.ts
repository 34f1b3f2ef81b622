/**
 * Vitest setup file for every project (vitest.shared.ts): `vi.waitFor` waits up to 10 s for its condition by
 * default instead of vitest's 1 s, as `expect.poll` does (its default is set in vitest.shared.ts). CI and the dev
 * machines have 2 cores shared by several suites at once: a condition that needs an HTTP round trip, a TLS
 * handshake or a child process (an informer syncing, a cluster engaging) can take longer than a second under load
 * without anything being wrong. Awaiting longer costs nothing when the condition holds early; a test that asserts
 * a time bound states it with its own `timeout`.
 */
import { vi } from 'vitest';

/** How long `vi.waitFor` and `expect.poll` wait for their condition unless told otherwise. */
export const patientTimeoutMs = 10_000;

const patched = Symbol.for('multicluster-runtime.patientWaitFor');
type WaitFor = typeof vi.waitFor & { [patched]?: true };

if (!(vi.waitFor as WaitFor)[patched]) {
  const original = vi.waitFor.bind(vi);
  const patient: WaitFor = (callback, options) =>
    original(callback, typeof options === 'number' ? options : { timeout: patientTimeoutMs, ...options });
  patient[patched] = true;
  vi.waitFor = patient;
}
