/**
 * Imported first by every entry point of core (and so before any module that imports @kubernetes/client-node: ES
 * modules evaluate their imports in order, depth first): on a Node that client-node's undici cannot run on, throws
 * {@link UndiciNeedsNewerNodeError}, which says what to do, instead of letting undici's TypeError surface. Reads
 * package.json files only; if the check itself cannot run (an unusual layout, a bundle), it stays silent and the
 * import goes on as it would have.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { undiciNodeProblem, type UndiciNeedsNewerNodeError } from './undici.js';

let problem: UndiciNeedsNewerNodeError | undefined;
try {
  problem = undiciNodeProblem(dirname(fileURLToPath(import.meta.url)));
} catch {
  problem = undefined;
}
if (problem) throw problem;
