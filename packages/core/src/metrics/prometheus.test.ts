import { describe, expect, it } from 'vitest';
import { Histogram, Registry, register as globalRegistry } from 'prom-client';
import { PrometheusMetrics } from './prometheus.js';

function seriesLines(text: string, cluster: string): string[] {
  return text.split('\n').filter((l) => !l.startsWith('#') && l.includes(`cluster="${cluster}"`));
}

describe('PrometheusMetrics', () => {
  it('records per-cluster reconcile, queue and informer series', async () => {
    const m = new PrometheusMetrics();
    m.reconcileDone('cm', 'a', 'success', 0.02);
    m.reconcileDone('cm', 'a', 'error', 0.1);
    m.reconcileDone('cm', 'b', 'terminal_error', 0.1);
    m.queueAdd('cm', 'a');
    m.queueDepth('cm', 'a', 3);
    m.queueLatency('cm', 'a', 0.5);
    m.queueRetry('cm', 'a');
    m.informerState('a', 'v1/ConfigMap', true, 0);
    m.activeWorkers('cm', 2);
    m.engagedClusters('cm', 2);
    const text = await m.scrape();
    expect(text).toContain('mcr_reconcile_total{controller="cm",cluster="a",result="success"} 1');
    expect(text).toContain('mcr_reconcile_total{controller="cm",cluster="a",result="error"} 1');
    expect(text).toContain('mcr_reconcile_errors_total{controller="cm",cluster="a"} 1');
    expect(text).toContain('mcr_reconcile_errors_total{controller="cm",cluster="b"} 1');
    expect(text).toContain('mcr_reconcile_time_seconds_count{controller="cm",cluster="a"} 2');
    expect(text).toContain('mcr_workqueue_adds_total{name="cm",cluster="a"} 1');
    expect(text).toContain('mcr_workqueue_depth{name="cm",cluster="a"} 3');
    expect(text).toContain('mcr_workqueue_queue_duration_seconds_count{name="cm",cluster="a"} 1');
    expect(text).toContain('mcr_workqueue_retries_total{name="cm",cluster="a"} 1');
    expect(text).toContain('mcr_informer_watching{cluster="a",kind="v1/ConfigMap"} 1');
    expect(text).toContain('mcr_informer_failures{cluster="a",kind="v1/ConfigMap"} 0');
    expect(text).toContain('mcr_active_workers{controller="cm"} 2');
    expect(text).toContain('mcr_engaged_clusters{owner="cm"} 2');
  });

  it('forgetCluster drops every series of that cluster and keeps the others', async () => {
    const m = new PrometheusMetrics();
    for (const c of ['a', 'b']) {
      m.reconcileDone('cm', c, 'error', 0.01);
      m.queueAdd('cm', c);
      m.queueDepth('cm', c, 1);
      m.queueLatency('cm', c, 0.01);
      m.queueRetry('cm', c);
      m.informerState(c, 'v1/Secret', false, 4);
    }
    m.forgetCluster('a');
    const text = await m.scrape();
    expect(seriesLines(text, 'a')).toEqual([]);
    expect(seriesLines(text, 'b').length).toBeGreaterThan(8);
    // Late writes (an in-flight reconcile finishing, a queue draining) do not bring the series back...
    m.reconcileDone('cm', 'a', 'success', 0.01);
    m.queueDepth('cm', 'a', 0);
    expect(seriesLines(await m.scrape(), 'a')).toEqual([]);
    // ...until the cluster is engaged again; then it starts from zero.
    m.clusterEngaged('a');
    m.queueAdd('cm', 'a');
    expect(await m.scrape()).toContain('mcr_workqueue_adds_total{name="cm",cluster="a"} 1');
  });

  it('keeps churn bounded: 1,000 clusters engaged and forgotten leave no series behind', async () => {
    const m = new PrometheusMetrics();
    for (let i = 0; i < 1000; i++) {
      const c = `c${i}`;
      m.reconcileDone('cm', c, 'success', 0.001);
      m.informerState(c, 'v1/ConfigMap', true, 0);
      m.forgetCluster(c);
    }
    expect((await m.scrape()).split('\n').filter((l) => l.includes('cluster="c'))).toEqual([]);
  });

  it('uses its own registry, so two recorders in one process do not collide', async () => {
    const a = new PrometheusMetrics();
    const b = new PrometheusMetrics();
    a.queueAdd('q', 'x');
    expect(await b.scrape()).not.toContain('cluster="x"');
    expect(await globalRegistry.metrics()).not.toContain('mcr_workqueue_adds_total');
  });

  it('counts across scrapes and shows the current gauge value in each, as text and as JSON', async () => {
    const m = new PrometheusMetrics();
    m.queueAdd('cm', 'a');
    m.queueDepth('cm', 'a', 5);
    m.reconcileDone('cm', 'a', 'success', 0.01);
    expect(await m.scrape()).toContain('mcr_workqueue_adds_total{name="cm",cluster="a"} 1');
    m.queueAdd('cm', 'a');
    m.queueAdd('cm', 'a');
    m.queueDepth('cm', 'a', 2);
    m.reconcileDone('cm', 'a', 'success', 0.01);
    m.activeWorkers('cm', 1);
    m.activeWorkers('cm', 0);
    const text = await m.scrape();
    expect(text).toContain('mcr_workqueue_adds_total{name="cm",cluster="a"} 3');
    expect(text).toContain('mcr_workqueue_depth{name="cm",cluster="a"} 2');
    expect(text).toContain('mcr_reconcile_total{controller="cm",cluster="a",result="success"} 2');
    expect(text).toContain('mcr_active_workers{controller="cm"} 0');
    const json = await m.registry.getMetricsAsJSON();
    const adds = json.find((metric) => metric.name === 'mcr_workqueue_adds_total');
    expect(adds?.values).toEqual([{ value: 3, labels: { name: 'cm', cluster: 'a' } }]);
    m.registry.resetMetrics();
    expect(await m.scrape()).not.toContain('cluster="a"');
    m.queueAdd('cm', 'a');
    expect(await m.scrape()).toContain('mcr_workqueue_adds_total{name="cm",cluster="a"} 1');
  });

  it("exposes its histograms exactly as prom-client's own Histogram does for the same observations", async () => {
    const m = new PrometheusMetrics();
    const reference = new Registry();
    const referenceHistogram = new Histogram({
      name: 'mcr_workqueue_queue_duration_seconds',
      help: 'Time an item waited in a work queue before a worker took it.',
      labelNames: ['name', 'cluster'],
      registers: [reference],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60],
    });
    const observations = [0, 0.001, 0.0011, 0.004, 0.05, 0.3, 7, 60, 61, 1e6];
    for (const [i, seconds] of observations.entries()) {
      const cluster = i % 3 === 0 ? 'a' : 'b';
      m.queueLatency('cm', cluster, seconds);
      referenceHistogram.observe({ name: 'cm', cluster }, seconds);
    }
    const block = (text: string) => text.split('\n').filter((l) => l.includes('mcr_workqueue_queue_duration_seconds'));
    expect(block(await m.scrape())).toEqual(block(await reference.metrics()));
    expect(block(await m.scrape()).length).toBe(2 + 2 * 13);
    const json = (await m.registry.getMetricsAsJSON()).find((x) => x.name === 'mcr_workqueue_queue_duration_seconds');
    const referenceJson = (await reference.getMetricsAsJSON())[0];
    // prom-client adds `exemplar: null` to each value when exemplars are off; there are none here.
    const withoutExemplar = (value: object) => {
      const { exemplar: _none, ...rest } = value as { exemplar?: unknown };
      return rest;
    };
    expect(json?.values).toEqual(referenceJson?.values.map(withoutExemplar));
    m.registry.resetMetrics();
    expect(block(await m.scrape()).length).toBe(2);
  });

  it('ignores nonsense durations instead of throwing', async () => {
    const m = new PrometheusMetrics();
    m.reconcileDone('cm', 'a', 'success', Number.NaN);
    m.queueLatency('cm', 'a', -1);
    const text = await m.scrape();
    expect(text).toContain('mcr_reconcile_total{controller="cm",cluster="a",result="success"} 1');
    expect(text).not.toContain('mcr_reconcile_time_seconds_count{controller="cm",cluster="a"}');
  });
});
