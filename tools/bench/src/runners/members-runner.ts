/**
 * Runner of the scale scenarios (`projects`, `namespaces`): multicluster-runtime's MiloProvider (project mode) or
 * NamespaceProvider in a process of its own, driven in stages so that each stage's memory can be read apart: `memory`
 * (heap and RSS after forced GC), `engage` (starts the manager and answers once all `--members` members are engaged,
 * no controller yet), `watch` (adds one ConfigMap controller, which starts an informer in every engaged member, or
 * routes the host's one informer to each, and answers once each member's ConfigMaps were reconciled), `join`
 * (namespaces only: answers once the fleet's late joiners, labelled meanwhile, are engaged and their ConfigMaps,
 * already in the host's informer, reconciled), `stop`. Started
 * as `node --expose-gc members-runner.js --kind milo|namespaces --kubeconfig FILE --members N --objects M`.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { newManager, silentLogger } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import { MiloProvider } from '@multicluster-runtime/provider-milo';
import { NamespaceProvider } from '@multicluster-runtime/provider-namespace';
import { joinersOf } from '../fleet/fleet-names.js';
import { readCommands } from '../protocol.js';
import { addBenchController } from './bench-controller.js';
import { memoryAfterGc } from './gc-memory.js';
import { Recorder } from './recorder.js';

/** Answer to `engage`: ms from `mgr.start` until every member was engaged. */
export interface MembersEngageReply {
  id: number;
  type: 'engage';
  members: number;
  engageMs: number;
}
/** Answer to `watch`: ms from adding the controller until every member's ConfigMaps were reconciled. */
export interface MembersWatchReply {
  id: number;
  type: 'watch';
  members: number;
  reconciles: number;
  watchMs: number;
}

/** Answer to `join`: ms from the command until every late joiner was engaged and its ConfigMaps reconciled. */
export interface MembersJoinReply {
  id: number;
  type: 'join';
  joiners: number;
  joinMs: number;
}

const pollMs = 20;
const waitLimitMs = 10 * 60_000;

function send(msg: object): void {
  process.stdout.write(`${JSON.stringify(msg)}\n`);
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + waitLimitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${waitLimitMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kind: { type: 'string' },
      kubeconfig: { type: 'string' },
      members: { type: 'string' },
      objects: { type: 'string', default: '0' },
    },
  });
  const members = Number(values.members);
  const objects = Number(values.objects);
  const kind = values.kind;
  if (
    (kind !== 'milo' && kind !== 'namespaces') ||
    !values.kubeconfig ||
    !Number.isInteger(members) ||
    members < 1 ||
    !Number.isInteger(objects) ||
    objects < 0
  ) {
    throw new Error('usage: members-runner --kind milo|namespaces --kubeconfig FILE --members N --objects M');
  }
  const provider = kind === 'milo' ? new MiloProvider() : new NamespaceProvider({ labelSelector: 'bench=on' });
  const mgr = newManager(loadUntrustedKubeconfig(await readFile(values.kubeconfig, 'utf8')), provider, {
    logger: silentLogger,
    gracefulShutdownTimeoutMs: 10_000,
  });
  const engaged = (): number => mgr.engagedClusters().filter((name) => name !== '').length;
  let reconciled = 0;
  const recorder = new Recorder(() => {
    reconciled++;
  });
  const stop = new AbortController();
  let running: Promise<void> | undefined;

  const engage = async (id: number): Promise<MembersEngageReply> => {
    if (running) throw new Error('engage was already sent');
    const t0 = performance.now();
    running = mgr.start(stop.signal);
    running.catch((err: unknown) => {
      process.stderr.write(`members runner: manager failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
    await until(() => engaged() >= members, `${members} engaged members`);
    return { id, type: 'engage', members: engaged(), engageMs: performance.now() - t0 };
  };

  let watching = false;
  const watch = async (id: number): Promise<MembersWatchReply> => {
    if (!running || watching) throw new Error('watch needs one engage before it, and is sent once');
    watching = true;
    const t0 = performance.now();
    addBenchController(mgr, recorder, 4);
    await until(
      () => reconciled >= members && recorder.stats().reconciles >= members * objects,
      `the ConfigMaps of ${members} members reconciled`,
    );
    return { id, type: 'watch', members: reconciled, reconciles: recorder.stats().reconciles, watchMs: performance.now() - t0 };
  };

  let joined = false;
  const join = async (id: number): Promise<MembersJoinReply> => {
    if (!watching || joined || kind !== 'namespaces') throw new Error('join follows watch, once, with namespaces');
    joined = true;
    const joiners = joinersOf(members);
    const t0 = performance.now();
    await until(
      () => engaged() >= members + joiners && recorder.stats().reconciles >= (members + joiners) * objects,
      `${joiners} late joiners engaged and their ConfigMaps reconciled`,
    );
    return { id, type: 'join', joiners, joinMs: performance.now() - t0 };
  };

  send({ type: 'ready', impl: 'mcr', pid: process.pid });
  try {
    for await (const cmd of readCommands<{ id: number; cmd: string }>()) {
      try {
        switch (cmd.cmd) {
          case 'memory':
            send(memoryAfterGc(cmd.id));
            break;
          case 'engage':
            send(await engage(cmd.id));
            break;
          case 'watch':
            send(await watch(cmd.id));
            break;
          case 'join':
            send(await join(cmd.id));
            break;
          case 'stop':
            return;
          default:
            send({ id: cmd.id, type: 'error', message: `unknown command ${cmd.cmd}` });
        }
      } catch (err) {
        send({ id: cmd.id, type: 'error', message: err instanceof Error ? err.message : String(err) });
      }
    }
  } finally {
    stop.abort();
    await running?.catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`members runner: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
