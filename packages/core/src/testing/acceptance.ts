/**
 * `describeProviderAcceptance`: registers the acceptance cases (cases.ts) for one provider as a vitest `describe`
 * block, each case in a fresh session, skipped cases reported as skipped with their reason.
 */
import { describe, it } from 'vitest';
import { acceptanceCases } from './cases.js';
import { validateFixture, type ProviderAcceptanceFixture } from './fixture.js';
import { AcceptanceSession } from './session.js';

/**
 * Registers the provider acceptance suite for `fixture`; call it at the top level of a test file. vitest is an
 * optional peer dependency of `@multicluster-runtime/core`, needed only by this entry point.
 */
export function describeProviderAcceptance(fixture: ProviderAcceptanceFixture): void {
  validateFixture(fixture);
  // Generous: a case waits for several conditions in turn, each bounded by waitTimeoutMs.
  const timeout = (fixture.waitTimeoutMs ?? 30_000) * 4;
  describe(`provider acceptance: ${fixture.name}`, () => {
    for (const c of acceptanceCases) {
      it(c.title, (ctx) => AcceptanceSession.run(fixture, (s) => c.run(s, (note) => ctx.skip(note))), timeout);
    }
  });
}
