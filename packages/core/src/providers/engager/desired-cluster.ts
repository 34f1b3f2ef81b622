/**
 * The state a source (a Secret, a file's context) asks for, decided from its current content alone. Loading goes
 * through core's `loadUntrustedKubeconfig`, so nothing a policy refuses is ever acted on.
 */
import {
  KubeconfigInvalidError,
  KubeconfigRejectedError,
  connectionFingerprint,
  loadUntrustedKubeconfig,
  type KubeconfigPolicy,
  type KubeconfigSource,
} from '../../kubeconfig/untrusted.js';
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * What a provider's source says one cluster should be: gone, engaged over a config, or refused (and why).
 */
export type DesiredCluster =
  /** The source is gone: disengage and forget the cluster. */
  | { readonly kind: 'absent' }
  /** Engage a cluster over `config` (replacing an engaged one with another fingerprint). */
  | { readonly kind: 'config'; readonly config: KubeConfig; readonly fingerprint: string }
  /**
   * The content cannot be used. `keepEngaged`: keep an engaged cluster on its last good config (a half-written file)
   * instead of disengaging it.
   */
  | {
      readonly kind: 'refused';
      readonly state: 'invalid' | 'rejected' | 'notReady';
      readonly reason: string;
      readonly keepEngaged: boolean;
    };

/**
 * The source is gone: disengage and forget the cluster.
 */
export const absentCluster: DesiredCluster = { kind: 'absent' };

/**
 * The source's content cannot be used (`invalid`) or is refused by policy (`rejected`); `keepEngaged` keeps an
 * engaged cluster on its last good config.
 */
export function refusedCluster(state: 'invalid' | 'rejected', reason: string, keepEngaged = false): DesiredCluster {
  return { kind: 'refused', state, reason, keepEngaged };
}

/**
 * The source is there but not ready (`reason` says what it waits for): the cluster is disengaged, and `status()` tells
 * it apart from a source the provider has never heard of.
 */
export function notReadyCluster(reason: string): DesiredCluster {
  return { kind: 'refused', state: 'notReady', reason, keepEngaged: false };
}

/**
 * Loads one context of an untrusted kubeconfig. Invalid content keeps an engaged cluster only if
 * `keepEngagedOnInvalid`; a policy rejection always disengages (the new content is complete, and refused).
 */
export function desiredFromKubeconfig(
  text: KubeconfigSource,
  policy: KubeconfigPolicy | undefined,
  options: { context?: string; keepEngagedOnInvalid?: boolean } = {},
): DesiredCluster {
  try {
    const config = loadUntrustedKubeconfig(text, policy, options.context === undefined ? {} : { context: options.context });
    return { kind: 'config', config, fingerprint: connectionFingerprint(config) };
  } catch (err) {
    if (err instanceof KubeconfigRejectedError) return refusedCluster('rejected', err.message);
    // Messages of KubeconfigInvalidError name fields and lines only; anything else is summarised by its class.
    const reason =
      err instanceof KubeconfigInvalidError ? err.message : `kubeconfig could not be loaded (${(err as Error)?.name ?? 'error'})`;
    return refusedCluster('invalid', reason, options.keepEngagedOnInvalid ?? false);
  }
}
