#!/usr/bin/env node
/**
 * The controller as a program, like the seed's `mongodb-controller`. With kubeconfigs it runs against a real kcp and
 * downstream cluster; without, it starts the walk-through's world from envtest (fake kcp, two consumer workspaces,
 * an in-memory downstream cluster and the stand-in operator), creates a database in one workspace and keeps running
 * so you can watch it with kubectl.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger, newManager, signalHandler } from '@multicluster-runtime/core';
import { ApiClient, DiscoveryRESTMapper, Transport } from '@multicluster-runtime/core/client';
import { ApiExportProvider } from '@multicluster-runtime/provider-kcp-apiexport';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXPORT_NAME, MONGODB, type MongoDBCommunity } from './api.js';
import { startFakeFleet, type FakeFleet } from './fake-fleet.js';
import { setupMongoSync } from './mongodb-sync.js';
import { setupStandInOperator } from './stand-in-operator.js';

const usage = `Usage: npm start -- [options]

Projects MongoDBCommunity objects from kcp consumer workspaces onto a downstream cluster and syncs status back.

With no kubeconfig options it runs on this machine: a fake kcp (root:mongodb exports the API; root:team-a and
root:team-b bind it), an in-memory downstream cluster with a stand-in operator, and one database in root:team-a.
It writes kubeconfigs for kubectl and prints what to try.
  --kubeconfig-dir DIR        where to write those kubeconfigs (default: a new temporary folder)

Real clusters:
  --kcp-kubeconfig PATH       the workspace holding the APIExport (e.g. a context at …/clusters/root:mongodb)
  --target-kubeconfig PATH    the downstream cluster
  --endpoint-slice NAME       the APIExportEndpointSlice (default ${EXPORT_NAME})
  --stand-in-operator         also run the stand-in operator on the downstream cluster

Both:
  --downstream-namespace NS   where projected objects go (default default)
  --duration SECONDS          stop after this long (default: run until Ctrl-C)
  -h, --help                  show this text
`;

interface Args {
  kcpKubeconfig?: string;
  targetKubeconfig?: string;
  endpointSlice: string;
  standInOperator: boolean;
  kubeconfigDir?: string;
  downstreamNamespace: string;
  durationSec?: number;
}

function parse(argv: string[]): Args | undefined {
  const { values: v } = parseArgs({
    args: argv,
    strict: true,
    options: {
      'kcp-kubeconfig': { type: 'string' },
      'target-kubeconfig': { type: 'string' },
      'endpoint-slice': { type: 'string', default: EXPORT_NAME },
      'stand-in-operator': { type: 'boolean', default: false },
      'kubeconfig-dir': { type: 'string' },
      'downstream-namespace': { type: 'string', default: 'default' },
      duration: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (v.help) return undefined;
  if (Boolean(v['kcp-kubeconfig']) !== Boolean(v['target-kubeconfig'])) {
    throw new Error('--kcp-kubeconfig and --target-kubeconfig go together');
  }
  if (v['kubeconfig-dir'] && v['kcp-kubeconfig']) throw new Error('--kubeconfig-dir is for the local run, not with --kcp-kubeconfig');
  const durationSec = v.duration === undefined ? undefined : Number(v.duration);
  if (durationSec !== undefined && !(durationSec > 0))
    throw new Error(`--duration must be a positive number, got ${JSON.stringify(v.duration)}`);
  return {
    kcpKubeconfig: v['kcp-kubeconfig'],
    targetKubeconfig: v['target-kubeconfig'],
    endpointSlice: v['endpoint-slice'],
    standInOperator: v['stand-in-operator'],
    kubeconfigDir: v['kubeconfig-dir'],
    downstreamNamespace: v['downstream-namespace'],
    durationSec,
  };
}

function kubeConfig(load: (kc: KubeConfig) => void): KubeConfig {
  const kc = new KubeConfig();
  load(kc);
  return kc;
}

/** Runs the controller (and the stand-in operator if asked) until `signal` aborts. */
async function runController(kcp: KubeConfig, target: KubeConfig, args: Args, withOperator: boolean, signal: AbortSignal): Promise<void> {
  const logger = createLogger();
  const provider = new ApiExportProvider({ endpointSliceName: args.endpointSlice, exportConfig: kcp });
  const mgr = newManager(target, provider, { logger });
  setupMongoSync(mgr, { downstreamNamespace: args.downstreamNamespace });
  const running = [mgr.start(signal)];
  if (withOperator) {
    const operator = newManager(target, undefined, { logger: logger.with({ manager: 'stand-in-operator' }) });
    setupStandInOperator(operator);
    running.push(operator.start(signal));
  }
  await Promise.all(running);
}

/** Writes the fleet's kubeconfigs, creates a database in root:team-a and says what to try. */
async function prepareLocalRun(fleet: FakeFleet, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const [teamA, teamB] = fleet.consumers;
  const files = { 'team-a': fleet.kubeconfig(teamA), 'team-b': fleet.kubeconfig(teamB), downstream: fleet.kubeconfig() };
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, `${name}.kubeconfig`), text, { mode: 0o600 });

  const transport = Transport.forConfig(kubeConfig((kc) => kc.loadFromString(files['team-a'])));
  try {
    const client = new ApiClient(transport, new DiscoveryRESTMapper(transport));
    const db: MongoDBCommunity = {
      ...MONGODB,
      metadata: { namespace: 'default', name: 'my-database' },
      spec: { members: 3, type: 'ReplicaSet', version: '6.0.5' },
    };
    await client.create(db);
    const other = { ...db, spec: { ...db.spec, version: '7.0.2' } };
    await writeFile(join(dir, 'team-b-database.json'), `${JSON.stringify(other, null, 2)}\n`);
  } finally {
    await transport.close();
  }
  const k = (name: string) => `kubectl --kubeconfig ${join(dir, `${name}.kubeconfig`)}`;
  process.stdout.write(`The walk-through runs on a fake kcp and an in-memory downstream cluster. Try:
  ${k('team-a')} get mongodbcommunity my-database -o yaml    # status comes back: Running
  ${k('team-a')} get events                                  # what the controller did, in the workspace
  ${k('downstream')} get mongodbcommunity                    # the projected objects
  ${k('team-b')} create -f ${join(dir, 'team-b-database.json')}    # same name, another workspace
  ${k('team-a')} delete mongodbcommunity my-database        # the finalizer deletes it downstream first
Ctrl-C stops it.
`);
}

async function main(argv: string[]): Promise<number> {
  let args: Args | undefined;
  try {
    args = parse(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  if (!args) {
    process.stdout.write(usage);
    return 0;
  }
  const stop = signalHandler();
  const signal = args.durationSec === undefined ? stop : AbortSignal.any([stop, AbortSignal.timeout(args.durationSec * 1000)]);

  if (args.kcpKubeconfig && args.targetKubeconfig) {
    const { kcpKubeconfig, targetKubeconfig } = args;
    const kcp = kubeConfig((kc) => kc.loadFromFile(kcpKubeconfig));
    const target = kubeConfig((kc) => kc.loadFromFile(targetKubeconfig));
    await runController(kcp, target, args, args.standInOperator, signal);
    return 0;
  }

  const fleet = await startFakeFleet();
  try {
    await prepareLocalRun(fleet, resolve(args.kubeconfigDir ?? (await mkdtemp(join(tmpdir(), 'kcp-mongodb-')))));
    const kcp = kubeConfig((kc) => kc.loadFromString(fleet.kubeconfig(fleet.exportWorkspace)));
    const target = kubeConfig((kc) => kc.loadFromString(fleet.kubeconfig()));
    await runController(kcp, target, args, true, signal);
  } finally {
    await fleet.close();
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
