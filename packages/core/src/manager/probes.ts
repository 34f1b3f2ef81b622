/**
 * The manager's probe endpoints: liveness and readiness checks, and the servers for `/metrics`, `/healthz` and
 * `/readyz`. Both addresses on the same fixed `host:port` share one server (as controller-runtime allows); port 0
 * picks a free port per server, which `addresses()` then reports.
 */
import { formatHostPort, parseBindAddress, type BindAddress } from '../healthz/bind-address.js';
import { HealthChecks } from '../healthz/checks.js';
import { ProbeServer, type MetricsSource, type ProbeRoutes } from '../healthz/probe-server.js';
import type { Logger } from '../log/logger.js';
import { PrometheusMetrics } from '../metrics/prometheus.js';
import type { MetricsRecorder } from '../metrics/types.js';
import type { ManagerOptions } from './options.js';

/** Where the probe servers listen, as bound (after `listen`). */
export interface ProbeAddresses {
  metrics?: string;
  healthProbe?: string;
}

export class Probes {
  readonly health = new HealthChecks();
  readonly ready = new HealthChecks();
  private readonly servers: ProbeServer[] = [];
  private bound: ProbeAddresses = {};

  constructor(
    private readonly log: Logger,
    /** What `/debug/clusters` shows, on the health probe server. */
    private readonly clusters?: () => unknown,
  ) {}

  /**
   * Starts the servers asked for (an absent or "0" address serves nothing); on failure, closes what it started.
   * `/metrics` serves `metricsRegistry`, else the registry of `metrics` when it is a PrometheusMetrics.
   */
  async listen(options: ManagerOptions, recorder: MetricsRecorder): Promise<void> {
    const metrics = options.metricsRegistry ?? (recorder instanceof PrometheusMetrics ? recorder.registry : undefined);
    try {
      await this.listenAll(parseBindAddress(options.metricsBindAddress), parseBindAddress(options.healthProbeBindAddress), metrics);
    } catch (err) {
      await this.close();
      throw err;
    }
    for (const [what, address] of Object.entries(this.bound)) this.log.info('serving probes', { what, address });
  }

  addresses(): ProbeAddresses {
    return { ...this.bound };
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.splice(0).map((s) => s.close()));
  }

  private async listenAll(metricsAt: BindAddress | undefined, healthAt: BindAddress | undefined, metrics: MetricsSource | undefined) {
    const health: ProbeRoutes = { healthz: this.health, readyz: this.ready, ...(this.clusters ? { clusters: this.clusters } : {}) };
    if (metricsAt && healthAt && sameBind(metricsAt, healthAt) && metricsAt.port !== 0) {
      const address = await this.serve(metricsAt, { ...health, metrics });
      this.bound = { metrics: address, healthProbe: address };
      return;
    }
    if (metricsAt) this.bound.metrics = await this.serve(metricsAt, { metrics });
    if (healthAt) this.bound.healthProbe = await this.serve(healthAt, health);
  }

  private async serve(bind: BindAddress, routes: ProbeRoutes): Promise<string> {
    const server = new ProbeServer(routes);
    const address = await server.listen(bind);
    this.servers.push(server);
    return address;
  }
}

function sameBind(a: BindAddress, b: BindAddress): boolean {
  return formatHostPort(a.host ?? '', a.port) === formatHostPort(b.host ?? '', b.port);
}
