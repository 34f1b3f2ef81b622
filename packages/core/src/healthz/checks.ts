/**
 * Named health checks (liveness or readiness). A check passes when it resolves and fails when it throws, rejects,
 * resolves `false`, or outlives its timeout, so a hanging dependency turns a probe red instead of hanging it.
 */
import { deadline } from '../signal/deadline.js';
import { abortable } from '../signal/wait.js';
import { HealthCheckNameError } from './errors.js';

/** A health check. It gets a signal that aborts when the probe gives up on it. */
export type HealthCheck = (signal: AbortSignal) => void | boolean | Promise<void | boolean>;

export interface CheckResult {
  name: string;
  ok: boolean;
  /** Why it failed. Check authors must keep credentials out of their error messages. */
  reason?: string;
}

const validName = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export class HealthChecks {
  private readonly checks = new Map<string, HealthCheck>();

  constructor(private readonly timeoutMs = 5_000) {}

  /** Registers a check; names are URL path segments (`/readyz/<name>`) and must be unique. */
  add(name: string, check: HealthCheck): void {
    if (!validName.test(name)) throw new HealthCheckNameError(name, 'use letters, digits, ".", "_" or "-"');
    if (this.checks.has(name)) throw new HealthCheckNameError(name, 'already registered');
    if (typeof check !== 'function') throw new HealthCheckNameError(name, 'the check must be a function');
    this.checks.set(name, check);
  }

  has(name: string): boolean {
    return this.checks.has(name);
  }

  names(): string[] {
    return [...this.checks.keys()].sort();
  }

  /** Runs the named checks (all when `only` is absent) concurrently. */
  async run(only?: string): Promise<CheckResult[]> {
    const names = only === undefined ? this.names() : [only];
    return Promise.all(names.map((name) => this.runOne(name)));
  }

  private async runOne(name: string): Promise<CheckResult> {
    const check = this.checks.get(name);
    if (!check) return { name, ok: false, reason: 'no such check' };
    const bound = deadline(undefined, this.timeoutMs);
    try {
      // A check that ignores its signal still loses the race: the probe answers on time either way.
      const r = await abortable(
        Promise.resolve().then(() => check(bound.signal)),
        bound.signal,
      );
      return r === false ? { name, ok: false, reason: 'check failed' } : { name, ok: true };
    } catch (err) {
      return { name, ok: false, reason: err instanceof Error ? err.message : String(err) };
    } finally {
      bound.dispose();
    }
  }
}
