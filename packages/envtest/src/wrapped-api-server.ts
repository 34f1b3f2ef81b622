/**
 * An ApiServer that forwards everything to the in-memory server it wraps. The fakes built on the in-memory server
 * (Milo, the Gardener garden) extend it with their fixtures and extra calls, so each states only what it adds.
 */
import type { ApiServer, ApiServerFaults, ApiServerStats } from './api-server.js';
import type { Authorizer } from './auth/authorizer.js';
import type { TokenOptions, TokenUser } from './auth/token-user.js';
import type { KubeconfigOptions } from './kubeconfig.js';
import type { PathMount } from './server/options.js';

export abstract class WrappedApiServer implements ApiServer {
  constructor(protected readonly server: ApiServer) {}

  get url(): string {
    return this.server.url;
  }
  get port(): number {
    return this.server.port;
  }
  get name(): string {
    return this.server.name;
  }
  get caPem(): string {
    return this.server.caPem;
  }
  get faults(): ApiServerFaults {
    return this.server.faults;
  }
  /** Kubeconfig YAML that reaches this server. */
  kubeconfig(opts?: KubeconfigOptions): string {
    return this.server.kubeconfig(opts);
  }
  /** Writes kubeconfig(opts) to `path`, readable by the owner only. */
  writeKubeconfig(path: string, opts?: KubeconfigOptions): Promise<void> {
    return this.server.writeKubeconfig(path, opts);
  }
  addToken(token: string, user: string | TokenUser, options?: TokenOptions): void {
    this.server.addToken(token, user, options);
  }
  setAuthorizer(authorizer: Authorizer | undefined): void {
    this.server.setAuthorizer(authorizer);
  }
  addMount(mount: PathMount): () => void {
    return this.server.addMount(mount);
  }
  /** Counters of the server since start. */
  stats(): ApiServerStats {
    return this.server.stats();
  }
  compact(): void {
    this.server.compact();
  }
  stop(): Promise<void> {
    return this.server.stop();
  }
  restart(): Promise<void> {
    return this.server.restart();
  }
  close(): Promise<void> {
    return this.server.close();
  }
}
