/**
 * KindProvider runs the provider acceptance suite against tools/fake-kind, a stand-in for the kind CLI run as a real
 * child process (kind-fixture.test-util.ts); acceptance.kind-cli.test.ts runs the same suite against the real kind.
 */
import { join } from 'node:path';
import { describeProviderAcceptance } from '@multicluster-runtime/core/testing';
import { fakeKindBin, kindAcceptanceFixture } from './kind-fixture.test-util.js';

describeProviderAcceptance(kindAcceptanceFixture('KindProvider (fake kind CLI)', join(fakeKindBin, 'kind')));
