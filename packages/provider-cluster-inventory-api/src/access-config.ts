/**
 * The operator's access providers: which credential plugin runs for which access provider name a ClusterProfile
 * may list, and how much of the profile's plugin arguments and environment it accepts. The format is the JSON file
 * Go controllers take as `--clusterprofile-provider-file` (sigs.k8s.io/cluster-inventory-api `pkg/access`), so one
 * file serves both. It is checked completely when loaded: every later decision relies on it being well formed.
 */
import { readFileSync } from 'node:fs';
import { ProviderConfigError } from '@multicluster-runtime/core/providers';
import {
  arrayOf,
  boolean,
  checkOptions,
  either,
  nested,
  nonEmptyString,
  oneOf,
  rule,
  type Shape,
} from '@multicluster-runtime/core/options';

/** What a profile's `clusterprofiles.multicluster.x-k8s.io/exec/additional-args` extension may do. Default `Ignore`. */
export type ProfileArgsPolicy = 'Append' | 'Ignore';
/**
 * What a profile's `clusterprofiles.multicluster.x-k8s.io/exec/additional-envs` extension may do. Default `Ignore`.
 * `AppendIfNotExists`: the operator's variables win; `Replace`: the profile's win.
 */
export type ProfileEnvPolicy = 'AppendIfNotExists' | 'Replace' | 'Ignore';

/** The credential plugin of an access provider (a kubeconfig `users[].user.exec` block). */
export interface AccessExecConfig {
  /** The plugin to run (a path, or a name looked up on PATH). Never taken from a profile. */
  command: string;
  args?: string[] | null;
  env?: Array<{ name: string; value: string }> | null;
  /** Default `client.authentication.k8s.io/v1`. */
  apiVersion?: string;
  /** Send the member's endpoint, CA and `client.authentication.k8s.io/exec` extension to the plugin. */
  provideClusterInfo?: boolean;
  /** A controller never prompts: only `Never` or `IfAvailable` work (the plugin is always told it cannot). */
  interactiveMode?: string;
  /** Shown when the command is missing. */
  installHint?: string;
}

/**
 * One entry of the operator's access file: an access provider name, its credential plugin, and what a profile may
 * add to the plugin's arguments and environment.
 */
export interface AccessProviderConfig {
  /** The name profiles list in `status.accessProviders[].name`. */
  name: string;
  execConfig: AccessExecConfig;
  profileSourcedCLIArgsPolicy?: ProfileArgsPolicy;
  profileSourcedEnvVarsPolicy?: ProfileEnvPolicy;
}

/** The whole file: providers in order of preference (a profile listing several is reached through the first here). */
export interface AccessConfig {
  providers: AccessProviderConfig[];
}

const orNull = (r: ReturnType<typeof rule>) =>
  either(
    rule('null', (v) => v === null),
    r,
  );

const execShape: Shape<AccessExecConfig> = {
  command: nonEmptyString,
  args: orNull(arrayOf(rule('a string', (v) => typeof v === 'string'))),
  env: orNull(
    arrayOf(nested<{ name: string; value: string }>({ name: nonEmptyString, value: rule('a string', (v) => typeof v === 'string') })),
  ),
  apiVersion: oneOf('client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'),
  provideClusterInfo: boolean,
  interactiveMode: oneOf('Never', 'IfAvailable'),
  installHint: rule('a string', (v) => typeof v === 'string'),
};

const providerShape: Shape<AccessProviderConfig> = {
  name: nonEmptyString,
  execConfig: nested(execShape),
  profileSourcedCLIArgsPolicy: oneOf('Append', 'Ignore'),
  profileSourcedEnvVarsPolicy: oneOf('AppendIfNotExists', 'Replace', 'Ignore'),
};

const configShape: Shape<AccessConfig> = { providers: arrayOf(nested(providerShape)) };

/**
 * Checks an access configuration (parsed JSON or built in code) and returns it; throws a ProviderConfigError naming
 * every problem (`source` says where it came from, e.g. the file's path).
 */
export function checkAccessConfig(config: unknown, source = 'the access configuration'): AccessConfig {
  const fail = (message: string) => new ProviderConfigError('ClusterProfileProvider', `${source}: ${message}`);
  if (typeof config !== 'object' || config === null || !Array.isArray((config as { providers?: unknown }).providers)) {
    throw fail('it must be an object with a "providers" list');
  }
  checkOptions(config as AccessConfig, configShape, fail);
  const providers = (config as AccessConfig).providers;
  const required = providers.flatMap((p, i) => [
    ...(p.name === undefined ? [`providers[${i}].name`] : []),
    ...(p.execConfig === undefined
      ? [`providers[${i}].execConfig`]
      : p.execConfig.command === undefined
        ? [`providers[${i}].execConfig.command`]
        : []),
  ]);
  if (required.length > 0) throw fail(`${required.join(', ')} ${required.length === 1 ? 'is' : 'are'} required`);
  if (providers.length === 0) throw fail('"providers" is empty: no profile could be reached');
  const names = providers.map((p) => p.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw fail(`provider ${JSON.stringify(twice)} is configured twice`);
  return config as AccessConfig;
}

/** Reads and checks the JSON file Go controllers take as `--clusterprofile-provider-file`. */
export function loadAccessConfigFile(path: string): AccessConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ProviderConfigError(
      'ClusterProfileProvider',
      `cannot read the access configuration ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ProviderConfigError('ClusterProfileProvider', `${path} is not JSON: ${(err as Error).message}`);
  }
  return checkAccessConfig(parsed, path);
}
