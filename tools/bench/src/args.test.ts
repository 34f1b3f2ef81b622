import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from './args.js';
import { BenchArgsError } from './errors.js';
import { clusterIdOf } from './runner-process.js';

describe('bench options', () => {
  it('defaults to every scenario and implementation', () => {
    expect(parseBenchArgs([])).toEqual({
      quick: false,
      json: undefined,
      charts: 'bench-charts',
      fromJson: undefined,
      help: false,
      scenarios: ['engage', 'throughput', 'latency', 'memory', 'scale', 'objects', 'projects', 'namespaces', 'parity'],
      impls: ['mcr', 'client-node', 'go-mcr'],
    });
  });

  it('keeps subsets in the canonical order', () => {
    const args = parseBenchArgs(['--quick', '--scenarios', 'memory,engage', '--impls', 'go-mcr,mcr', '--json', 'out.json']);
    expect(args).toMatchObject({ quick: true, json: 'out.json', scenarios: ['engage', 'memory'], impls: ['mcr', 'go-mcr'] });
  });

  it('rejects unknown scenarios, implementations and flags with a clear error', () => {
    expect(() => parseBenchArgs(['--scenarios', 'engage,speed'])).toThrow(
      /--scenarios takes a comma-separated subset of engage, throughput, latency, memory, scale, objects, projects, namespaces, parity; got engage,speed/,
    );
    expect(() => parseBenchArgs(['--impls', ''])).toThrow(BenchArgsError);
    expect(() => parseBenchArgs(['--fast'])).toThrow(BenchArgsError);
    expect(() => parseBenchArgs(['--json', ''])).toThrow(/--json needs a file name/);
    expect(() => parseBenchArgs(['--charts', ''])).toThrow(/--charts needs a folder name/);
    expect(() => parseBenchArgs(['--from-json', ''])).toThrow(/--from-json needs a file name/);
  });
});

describe('cluster ids', () => {
  it("recovers the bench id from each implementation's cluster naming", () => {
    expect(clusterIdOf('/tmp/mcr-bench-x/engage-mcr-y/e12.kubeconfig+member-3')).toBe('e12'); // TS file provider: path+context
    expect(clusterIdOf('e12')).toBe('e12'); // Secret providers and the Go folder provider: the name
  });
});
