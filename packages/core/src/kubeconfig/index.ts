/**
 * `@multicluster-runtime/core/kubeconfig`: kubeconfigs from untrusted places (Secrets, files, inventories): loading
 * them under a policy of what they may do. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { KubeconfigCapability, KubeconfigPolicy, KubeconfigSource, KubeconfigViolation, LoadKubeconfigOptions } from './untrusted.js';
export {
  KubeconfigError,
  KubeconfigInvalidError,
  KubeconfigRejectedError,
  ParsedKubeconfig,
  certificateAuthorityProblem,
  connectionFingerprint,
  listKubeconfigContexts,
  loadUntrustedKubeconfig,
  parseUntrustedKubeconfig,
} from './untrusted.js';
