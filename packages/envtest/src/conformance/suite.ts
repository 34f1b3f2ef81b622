/**
 * The API-server conformance suite: every case is a real HTTPS exchange, asserting what a real kube-apiserver does
 * (apiserver-protocol.md cites the sources). Backends: the in-memory server (in-memory.test.ts) and, from H-real, a
 * real kube-apiserver + etcd. Cases that need fault hooks skip when the backend has none.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import type { Backend } from './backend.js';
import { authCases } from './cases/auth.js';
import { bootstrapCases } from './cases/bootstrap.js';
import { builtinCases } from './cases/builtins.js';
import { crdCases } from './cases/crd.js';
import { crudCases } from './cases/crud.js';
import { deleteCases } from './cases/delete.js';
import { discoveryCases } from './cases/discovery.js';
import { faultCases } from './cases/faults.js';
import { listCases } from './cases/list.js';
import { patchCases } from './cases/patch.js';
import { representationCases } from './cases/representation.js';
import { watchCases } from './cases/watch.js';
import { LazyContext } from './context.js';

export type { Backend } from './backend.js';

export function conformanceSuite(backendName: string, start: () => Promise<Backend>): void {
  describe(`API server conformance (${backendName})`, () => {
    const ctx = new LazyContext();
    beforeAll(() => ctx.init(start));
    afterAll(() => ctx.dispose());
    discoveryCases(ctx);
    authCases(ctx);
    crudCases(ctx);
    patchCases(ctx);
    deleteCases(ctx);
    listCases(ctx);
    watchCases(ctx);
    crdCases(ctx);
    builtinCases(ctx);
    bootstrapCases(ctx);
    representationCases(ctx);
    faultCases(ctx);
  });
}
