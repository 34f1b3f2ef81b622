/**
 * Vitest setup file for every project (vitest.shared.ts): a test file fails when its process emits a Node warning
 * (MaxListenersExceededWarning, DeprecationWarning, a warning about an unhandled rejection, ...). A warning is a bug
 * announced early: listeners piling up on a signal, an API about to disappear. It must not scroll past in the log.
 *
 * A warning emitted while a test runs fails that test (afterEach); one emitted after every test finished (a timer
 * firing during teardown) fails the file (afterAll). Node emits warnings on a later tick than the call that caused
 * them, so both hooks first let pending ticks and immediates run. Unhandled rejections need nothing here: vitest
 * reports them as errors and fails the run.
 */
import { afterAll, afterEach } from 'vitest';

const pending: Error[] = [];
process.on('warning', (warning) => pending.push(warning));

/** Throws one error naming every warning seen since the last check, with where each was emitted. */
async function failOnWarnings(when: string): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (pending.length === 0) return;
  const warnings = pending.splice(0);
  const text = warnings.map((w) => `${w.name}: ${w.message}\n${(w.stack ?? '').split('\n').slice(1).join('\n')}`).join('\n\n');
  throw new Error(`the process emitted ${warnings.length === 1 ? 'a warning' : `${warnings.length} warnings`} ${when}:\n\n${text}`);
}

afterEach(() => failOnWarnings('during this test'));
afterAll(() => failOnWarnings('after the last test of this file'));
