/** What the conformance suite needs from an API server under test (the in-memory one or a real kube-apiserver). */
import type { TokenOptions } from '../auth/token-user.js';
export interface Backend {
  /** Admin kubeconfig YAML (CA + client certificate, or a token). */
  readonly kubeconfig: string;
  readonly url: string;
  close(): Promise<void>;
  /** Fault hooks; cases that need them skip when absent. */
  readonly faults?: {
    dropWatches(): void;
    failNextWatch(code?: number): void;
  };
  /** Drops history so old resourceVersions get 410; cases that need it skip when absent. */
  compact?(): void;
  /** Registers a bearer token (the tier's own addToken, unchanged); the auth cases skip when absent. */
  addToken?(token: string, user: unknown, options?: TokenOptions): void;
}
