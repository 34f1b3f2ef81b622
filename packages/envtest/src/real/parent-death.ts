/**
 * Makes a child die with its parent even when the parent is SIGKILLed (a test runner killed on timeout), which no
 * 'exit' handler survives. On Linux, util-linux's `setpriv --pdeathsig KILL` sets PR_SET_PDEATHSIG and then execs
 * the binary, so the child keeps its pid and command line. Elsewhere, or without setpriv, the command is unchanged.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

let setprivPath: string | null | undefined;

function findSetpriv(): string | null {
  if (setprivPath !== undefined) return setprivPath;
  setprivPath = null;
  if (process.platform === 'linux') {
    for (const dir of (process.env['PATH'] ?? '/usr/bin:/bin').split(delimiter)) {
      const candidate = join(dir, 'setpriv');
      try {
        accessSync(candidate, constants.X_OK);
        setprivPath = candidate;
        break;
      } catch {
        // not in this folder
      }
    }
  }
  return setprivPath;
}

/** The command and arguments that run `command args` so that it is SIGKILLed when this process dies. */
export function dieWithParent(command: string, args: readonly string[]): { command: string; args: string[] } {
  const setpriv = findSetpriv();
  return setpriv ? { command: setpriv, args: ['--pdeathsig', 'KILL', '--', command, ...args] } : { command, args: [...args] };
}
