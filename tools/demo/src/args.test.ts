import { describe, expect, test } from 'vitest';
import { parseDemoArgs, UsageError } from './args.js';

describe('demo flags', () => {
  test('defaults run the embedded fleet until stopped', () => {
    expect(parseDemoArgs([])).toEqual({ clusters: 3, maxClusters: 6, churnSec: 4, plain: false, source: { kind: 'embedded' } });
  });
  test('real-cluster sources', () => {
    expect(parseDemoArgs(['--kubeconfig-dir', '/fleet'])?.source).toEqual({ kind: 'kubeconfig-dir', dir: '/fleet' });
    expect(parseDemoArgs(['--kind', 'dev-'])?.source).toEqual({ kind: 'kind', prefix: 'dev-' });
    expect(parseDemoArgs(['--capi'])?.source).toEqual({ kind: 'capi' });
    expect(parseDemoArgs(['--capi', 'fleet'])?.source).toEqual({ kind: 'capi', namespace: 'fleet' });
    expect(parseDemoArgs(['--namespaces'])?.source).toEqual({ kind: 'namespaces' });
    expect(parseDemoArgs(['--namespaces', 'fleet=on'])?.source).toEqual({ kind: 'namespaces', selector: 'fleet=on' });
    expect(parseDemoArgs(['--garden', 'garden.yaml'])?.source).toEqual({ kind: 'garden', kubeconfig: 'garden.yaml' });
    expect(parseDemoArgs(['--garden', 'garden.yaml', 'garden-dev'])?.source).toEqual({
      kind: 'garden',
      kubeconfig: 'garden.yaml',
      namespace: 'garden-dev',
    });
    expect(parseDemoArgs(['--cluster-profiles', 'fleet', '--access-config', 'access.json'])?.source).toEqual({
      kind: 'cluster-profiles',
      namespace: 'fleet',
      accessConfig: 'access.json',
    });
  });
  test('--help asks for the usage text', () => {
    expect(parseDemoArgs(['--help'])).toBeUndefined();
  });
  test.each([
    [['--duration', 'soon'], /--duration must be an integer/],
    [['--clusters', '5', '--max-clusters', '2'], /--max-clusters must be at least --clusters/],
    [['--bogus'], /Unknown option/],
    [['--kind', '--kubeconfig-dir', 'x'], /choose one/],
    [['--kind', '--capi'], /choose one/],
    [['--namespaces', '--capi'], /choose one/],
    [['--garden', 'g.yaml', '--kind'], /choose one/],
    [['--garden', ''], /needs the path/],
    [['--capi', '--cluster-profiles', 'fleet', '--access-config', 'a.json'], /choose one/],
    [['--cluster-profiles', 'fleet'], /--cluster-profiles and --access-config come together/],
    [['stray'], /unexpected argument "stray"/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseDemoArgs(argv)).toThrow(UsageError);
    expect(() => parseDemoArgs(argv)).toThrow(message);
  });
});
