/**
 * The stdin/stdout loop shared by the TypeScript runners: starts the implementation, announces it, then answers
 * commands until "stop" or until stdin closes (the bench went away), and stops the implementation before exiting.
 */
import { processCpuMs, readCommands, type RunnerCommand, type RunnerMessage } from '../protocol.js';
import { memoryAfterGc } from './gc-memory.js';
import { Recorder } from './recorder.js';
import { parseRunnerArgs, type RunnerArgs } from './runner-args.js';

/** An implementation under test, running. */
export interface RunningImpl {
  /** Clusters engaged (cache synced and handed to the controller) right now. */
  engaged(): number;
  stop(): Promise<void>;
}

export type StartImpl = (args: RunnerArgs, recorder: Recorder) => Promise<RunningImpl>;

function send(msg: RunnerMessage): void {
  process.stdout.write(`${JSON.stringify(msg)}\n`);
}

/** Runs a runner process's main loop; sets the exit code. */
export async function serveRunner(impl: string, start: StartImpl): Promise<void> {
  const args = parseRunnerArgs(process.argv.slice(2));
  const recorder = new Recorder(send);
  const running = await start(args, recorder);
  send({ type: 'ready', impl, pid: process.pid });

  for await (const cmd of readCommands<RunnerCommand>()) {
    const { id } = cmd;
    switch (cmd.cmd) {
      case 'engaged':
        send({ id, type: 'engaged', clusters: running.engaged() });
        break;
      case 'reset':
        recorder.reset();
        send({ id, type: 'reset', cpuMs: processCpuMs() });
        break;
      case 'stats':
        send({ id, type: 'stats', ...recorder.stats(), cpuMs: processCpuMs() });
        break;
      case 'memory':
        send(memoryAfterGc(id));
        break;
      case 'stop':
        await running.stop();
        send({ id, type: 'stop' });
        return;
      default:
        send({ id, type: 'error', message: `unknown command ${String((cmd as { cmd: unknown }).cmd)}` });
    }
  }
  await running.stop();
}

/** Entry-point wrapper: a failure to start is printed on stderr and exits non-zero. */
export function runnerMain(impl: string, start: StartImpl): void {
  serveRunner(impl, start).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${impl}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
