/**
 * `@multicluster-runtime/core/kubeconfig`: kubeconfigs from untrusted places (Secrets, files, inventories): loading
 * them under a policy of what they may do. The package root exports the part of this most programs need.
 */
export type { KubeconfigCapability, KubeconfigPolicy, KubeconfigViolation, LoadKubeconfigOptions } from './untrusted.js';
export {
  KubeconfigError,
  KubeconfigInvalidError,
  KubeconfigRejectedError,
  connectionFingerprint,
  listKubeconfigContexts,
  loadUntrustedKubeconfig,
} from './untrusted.js';
