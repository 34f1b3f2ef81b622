/** Command-line options every runner takes (the Go baseline takes the same flags). */
import { parseArgs } from 'node:util';

export type ProviderKind = 'file' | 'secret';

export interface RunnerArgs {
  provider: ProviderKind;
  /** The kubeconfig folder (provider file). */
  dir: string;
  /** Kubeconfig of the host cluster: the manager's local cluster, and where kubeconfig Secrets live. */
  hostKubeconfig: string;
  /** Namespace of the kubeconfig Secrets (provider secret). */
  namespace: string;
  concurrency: number;
}

export class RunnerArgsError extends Error {
  override readonly name = 'RunnerArgsError';
}

export function parseRunnerArgs(argv: readonly string[]): RunnerArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      provider: { type: 'string', default: 'file' },
      dir: { type: 'string', default: '' },
      'host-kubeconfig': { type: 'string', default: '' },
      namespace: { type: 'string', default: 'default' },
      concurrency: { type: 'string', default: '1' },
    },
  });
  const provider = values.provider;
  if (provider !== 'file' && provider !== 'secret') throw new RunnerArgsError(`--provider must be file or secret, got ${provider}`);
  if (provider === 'file' && !values.dir) throw new RunnerArgsError('--dir is required with --provider file');
  if (!values['host-kubeconfig']) throw new RunnerArgsError('--host-kubeconfig is required');
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RunnerArgsError(`--concurrency must be a positive integer, got ${values.concurrency}`);
  return { provider, dir: values.dir, hostKubeconfig: values['host-kubeconfig'], namespace: values.namespace, concurrency };
}
