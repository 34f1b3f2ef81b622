/**
 * `MultiProvider`: one fleet made of several named providers. A cluster `c` of provider `p` is engaged as `"p#c"`
 * (the separator is configurable), `get("p#c")` asks `p` for `c`, and field indexes reach every provider exactly
 * once, including providers added later. Providers can be added and removed while the fleet runs; removing one stops
 * it and disengages all of its clusters at once, even if the provider itself ignores its stop signal.
 */
import { ClusterNotFoundError, isClusterNotFound, silentLogger } from '@multicluster-runtime/core';
import { IndexFieldError, ProviderAlreadyStartedError, isProviderRunnable } from '@multicluster-runtime/core/providers';
import type { ClusterStatus, StatusSource } from '@multicluster-runtime/core/providers';
import { linkedAbort, whenAborted } from '@multicluster-runtime/core/signal';
import { anyValue, checkOptions, withMethods } from '@multicluster-runtime/core/options';
import type {
  Aware,
  Cluster,
  ClusterName,
  IndexerFunc,
  Logger,
  ObjectKind,
  Provider,
  ProviderContext,
  ProviderRunnable,
} from '@multicluster-runtime/core';
import { MultiProviderError, MultiProviderStoppedError, ProviderNameError, ProviderRemovedError } from './errors.js';

export interface MultiProviderOptions {
  /** Between the provider's name and the cluster's name. Default `#`. */
  separator?: string;
  /** Where the multi provider logs, and the default logger of its members. Default: the manager's logger. */
  logger?: Logger;
}

interface IndexRecord {
  readonly kind: ObjectKind;
  readonly field: string;
  readonly extract: IndexerFunc;
}

interface Member {
  readonly name: string;
  readonly provider: Provider;
  /** Index records already handed to this provider (each exactly once). */
  readonly indexed: Set<IndexRecord>;
  /** Aborted when the member is removed or the multi provider stops; ends every engagement of its clusters. */
  readonly life: AbortController;
  /** Settles when the member's `start` has returned (at once for providers without a discovery loop). */
  done: Promise<void>;
  started: boolean;
  /** Recorded indexes are still being applied; `add` starts the member once they are. */
  indexing: boolean;
}

/** One run of the multi provider: its stop signal and the context its members are started with. */
interface Run {
  readonly signal: AbortSignal;
  readonly context: ProviderContext;
}

/**
 * Several providers as one fleet: each member provider's clusters are named `<provider><separator><cluster>`;
 * providers can be added and removed while it runs.
 */
export class MultiProvider implements ProviderRunnable {
  readonly separator: string;
  private readonly ownLogger: boolean;
  private log: Logger;
  private readonly members = new Map<string, Member>();
  private readonly indexes: IndexRecord[] = [];
  private run: Run | undefined;
  private state: 'new' | 'running' | 'stopped' = 'new';

  constructor(options: MultiProviderOptions = {}) {
    checkOptions(
      options,
      { separator: anyValue, logger: withMethods('a Logger', ['debug', 'info', 'warn', 'error', 'with']) },
      (message) => new MultiProviderError(message),
      { prefix: 'options.' },
    );
    this.separator = options.separator ?? '#';
    if (this.separator === '') throw new MultiProviderError('options.separator must not be empty');
    this.log = options.logger ?? silentLogger;
    this.ownLogger = options.logger !== undefined;
  }

  /**
   * Adds a provider under `name`. Recorded field indexes are applied to it first; if the multi provider is running
   * and `provider` has a discovery loop, that loop is started at once.
   */
  async add(name: string, provider: Provider): Promise<void> {
    if (this.state === 'stopped') throw new MultiProviderStoppedError(`add provider ${JSON.stringify(name)}`);
    if (name === '') throw new ProviderNameError(name, 'is empty');
    if (name.includes(this.separator)) {
      throw new ProviderNameError(name, `contains the separator ${JSON.stringify(this.separator)}`);
    }
    if (this.members.has(name)) throw new ProviderNameError(name, 'is already taken');
    const member: Member = {
      name,
      provider,
      indexed: new Set(),
      life: new AbortController(),
      done: Promise.resolve(),
      started: false,
      indexing: true,
    };
    // Registered before indexing so a concurrent indexField reaches it too; `indexed` keeps it to once per record.
    this.members.set(name, member);
    const failures = new Map<string, unknown>();
    await Promise.all(
      [...this.indexes].map(async (index) => {
        try {
          await this.applyIndex(member, index);
        } catch (err) {
          failures.set(index.field, err);
        }
      }),
    );
    if (failures.size > 0) {
      if (this.members.get(name) === member) this.members.delete(name);
      member.life.abort();
      throw new IndexFieldError(`provider ${JSON.stringify(name)} was not added: applying recorded field indexes failed`, failures);
    }
    member.indexing = false;
    if (this.members.get(name) !== member) return; // removed while indexing
    if (this.run) this.startMember(member, this.run);
    this.log.info('provider added', { member: name });
  }

  /**
   * Removes the provider: its discovery loop is stopped and every cluster it engaged is disengaged. Resolves once
   * its `start` has returned. A no-op for unknown names.
   */
  async remove(name: string): Promise<void> {
    const member = this.members.get(name);
    if (!member) return;
    this.members.delete(name);
    member.life.abort();
    this.log.info('provider removed', { member: name });
    await member.done;
  }

  /** Names of the member providers, sorted. */
  providerNames(): string[] {
    return [...this.members.keys()].sort();
  }

  /** The provider added under `name`, or undefined. */
  getProvider(name: string): Provider | undefined {
    return this.members.get(name)?.provider;
  }

  /**
   * What each member provider that reports statuses knows of its clusters, under the composed names
   * (`"<provider><separator><cluster>"`), so the manager's `fleetReadiness` and `/debug/clusters` see the whole fleet.
   */
  statuses(): Map<ClusterName, ClusterStatus> {
    const all = new Map<ClusterName, ClusterStatus>();
    for (const member of this.members.values()) {
      const source = member.provider as Partial<StatusSource>;
      if (typeof source.statuses !== 'function') continue;
      for (const [name, status] of source.statuses()) all.set(`${member.name}${this.separator}${name}`, status);
    }
    return all;
  }

  /** The status of one composed cluster name, when its provider reports statuses. */
  status(name: ClusterName): ClusterStatus | undefined {
    return this.statuses().get(name);
  }

  /** The cluster `"<provider><separator><cluster>"`; ClusterNotFoundError for an unknown provider or cluster. */
  async get(name: ClusterName, signal?: AbortSignal): Promise<Cluster> {
    const at = name.indexOf(this.separator);
    const member = at > 0 ? this.members.get(name.slice(0, at)) : undefined;
    if (!member) {
      throw new ClusterNotFoundError(name, {
        cause: new Error(
          at > 0
            ? `no provider named ${JSON.stringify(name.slice(0, at))}`
            : `cluster names here have the form "<provider>${this.separator}<cluster>"`,
        ),
      });
    }
    try {
      return await member.provider.get(name.slice(at + this.separator.length), signal);
    } catch (err) {
      if (isClusterNotFound(err)) throw new ClusterNotFoundError(name, { cause: err });
      throw err;
    }
  }

  /**
   * Records the index and applies it to every member provider (each applies it to its present and future
   * clusters). Members added later get it when they are added. Each provider receives each index exactly once.
   */
  async indexField(kind: ObjectKind, field: string, extract: IndexerFunc): Promise<void> {
    const index: IndexRecord = { kind, field, extract };
    this.indexes.push(index);
    const failures = new Map<string, unknown>();
    await Promise.all(
      [...this.members.values()].map(async (member) => {
        try {
          await this.applyIndex(member, index);
        } catch (err) {
          failures.set(member.name, err);
        }
      }),
    );
    if (failures.size > 0) {
      throw new IndexFieldError(
        `indexing ${JSON.stringify(field)} of ${kind.apiVersion}/${kind.kind} failed in providers ${[...failures.keys()].map((n) => JSON.stringify(n)).join(', ')}`,
        failures,
      );
    }
  }

  /**
   * Starts every member's discovery loop and runs until `signal` aborts; then stops them all. Each member is started
   * with this context, its Aware prefixing the member's cluster names and its logger naming the member.
   */
  async start(signal: AbortSignal, context: ProviderContext): Promise<void> {
    if (this.state !== 'new') throw new ProviderAlreadyStartedError('MultiProvider');
    this.state = 'running';
    if (!this.ownLogger) this.log = context.logger;
    const run: Run = { signal, context };
    this.run = run;
    try {
      for (const member of this.members.values()) this.startMember(member, run);
      await whenAborted(signal);
    } finally {
      this.state = 'stopped';
      this.run = undefined;
      const members = [...this.members.values()];
      for (const member of members) member.life.abort();
      await Promise.all(members.map((m) => m.done));
    }
  }

  private async applyIndex(member: Member, index: IndexRecord): Promise<void> {
    if (member.indexed.has(index)) return;
    member.indexed.add(index);
    await member.provider.indexField(index.kind, index.field, index.extract);
  }

  private startMember(member: Member, run: Run): void {
    if (member.started || member.indexing || !isProviderRunnable(member.provider)) return;
    member.started = true;
    const provider: ProviderRunnable = member.provider;
    const life = linkedAbort(run.signal, member.life.signal);
    const log = this.log.with({ member: member.name });
    const context: ProviderContext = { ...run.context, aware: this.memberAware(member, run.context.aware), logger: log };
    member.done = (async () => {
      try {
        await provider.start(life.signal, context);
        if (!life.signal.aborted) log.warn('provider stopped on its own; removing it');
      } catch (err) {
        log.error('provider failed; removing it', err);
      } finally {
        // Its clusters go with it, whether or not the provider disengaged them itself.
        if (this.members.get(member.name) === member) this.members.delete(member.name);
        member.life.abort();
        life.dispose();
      }
    })();
  }

  /** The Aware a member engages through: prefixes names and ties every engagement to the member's life. */
  private memberAware(member: Member, outer: Aware): Aware {
    const prefix = `${member.name}${this.separator}`;
    return {
      engage: async (signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> => {
        if (member.life.signal.aborted) throw new ProviderRemovedError(member.name, name);
        const engagement = linkedAbort(signal, member.life.signal);
        try {
          await outer.engage(engagement.signal, prefix + name, cluster);
        } catch (err) {
          engagement.abort();
          throw err;
        }
      },
    };
  }
}
