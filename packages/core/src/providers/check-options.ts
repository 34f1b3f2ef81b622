/**
 * A provider's options are checked when it is made: its own keys by the rules it gives, the connection options every
 * kubeconfig-based provider shares (and the kubeconfig policy) by core's, and any other key is refused with a "did you
 * mean". A typo such as `labelSelecter` then fails at construction instead of silently selecting every Secret.
 */
import { checkOptions } from '../options/check.js';
import { rule, type Rule, type Shape } from '../options/rules.js';
import { connectionRules } from './engager/connection-options.js';
import { ProviderConfigError } from './errors.js';

/** The rule for a provider's `hostCluster` option: a Cluster (core's, or one built with `newCluster`). */
export const hostClusterRule: Rule = rule('a Cluster', (v) => typeof v === 'object' && v !== null);

/**
 * Settings of {@link checkProviderOptions}.
 */
export interface ProviderOptionsSettings {
  /** Whether the options include the shared ClusterConnectionOptions and `policy`. Default true. */
  connection?: boolean;
}

/**
 * Throws ProviderConfigError naming every problem of `options` (`undefined` is fine). `own` has a rule for each of the
 * provider's own keys; required keys are the provider's to check (rules see only the keys that are present).
 */
export function checkProviderOptions(
  provider: string,
  options: object | undefined,
  own: Readonly<Record<string, Rule>>,
  settings: ProviderOptionsSettings = {},
): void {
  const shape: Shape = { ...(settings.connection === false ? {} : connectionRules), ...own };
  checkOptions(options as Record<string, unknown> | undefined, shape, (message) => new ProviderConfigError(provider, message), {
    prefix: 'options.',
  });
}
