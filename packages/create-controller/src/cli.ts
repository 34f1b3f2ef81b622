/**
 * The command line: `create-controller [dir] [--name N] [--provider P] [--yes]`. Flags win; what they leave out is
 * asked on a terminal, or defaulted with --yes (the folder's name, kubeconfig Secrets). With no terminal and no --yes
 * a missing value is an error that names the flag, never a hang on a prompt no one can answer.
 */
import { basename, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { UsageError } from './errors.js';
import { providerChoice, providerIds, type ProviderId } from './providers.js';
import { checkProjectName, checkProviderId, type ScaffoldOptions } from './scaffold.js';

export const usage = `Usage: npm init @multicluster-runtime/controller <dir> -- [--provider <provider>] [--name <name>] [--yes]
       create-controller <dir> [--provider <provider>] [--name <name>] [--yes]

Writes a multi-cluster controller project into <dir> (which must be new or empty).

  --provider <p>  where the fleet comes from (default kubeconfig-secrets):
${providerIds.map((id) => `                    ${id.padEnd(20)} ${providerChoice(id, 'x').summary}`).join('\n')}
  --name <name>   the project's name, a DNS label (default: the folder's name)
  --yes, -y       ask nothing: defaults for what the flags leave out
  --help, -h      this text`;

/** What the user asked for, before any question: `help` when --help was given. */
export type Invocation = { help: true } | ({ help: false } & Partial<ScaffoldOptions> & { yes: boolean });

export function parseCommandLine(argv: string[]): Invocation {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        provider: { type: 'string' },
        name: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  if (positionals.length > 1) throw new UsageError(`one folder, not ${positionals.length}: ${positionals.join(' ')}`);
  if (values.provider !== undefined) checkProviderId(values.provider);
  if (values.name !== undefined) checkProjectName(values.name);
  return {
    help: false,
    yes: values.yes ?? false,
    dir: positionals[0],
    name: values.name,
    provider: values.provider,
  };
}

/** Something that can ask a question (a terminal); undefined when there is none. */
export interface Asker {
  ask(question: string): Promise<string>;
  /** Shows a line (a list of choices, why an answer was refused). */
  say(line: string): void;
  close(): void;
}

export function terminalAsker(input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stdout): Asker | undefined {
  if (!input.isTTY) return undefined;
  const rl = createInterface({ input, output });
  return { ask: (q) => rl.question(q), say: (line) => output.write(`${line}\n`), close: () => rl.close() };
}

/** Completes the invocation: flags, then answers (re-asked until valid), then defaults with --yes. */
export async function resolveOptions(invocation: Exclude<Invocation, { help: true }>, asker: Asker | undefined): Promise<ScaffoldOptions> {
  const interactive = !invocation.yes && asker !== undefined;
  if (!interactive && !invocation.yes) {
    const missing = [
      ...(invocation.dir === undefined ? ['<dir>'] : []),
      ...(invocation.name === undefined ? ['--name'] : []),
      ...(invocation.provider === undefined ? ['--provider'] : []),
    ];
    if (missing.length > 0) throw new UsageError(`no terminal to ask on: give ${missing.join(', ')}, or --yes for the defaults`);
  }
  const ask = async <T>(question: string, fallback: string, check: (answer: string) => T): Promise<T> => {
    for (;;) {
      const answer = (await asker!.ask(`${question} (${fallback}) `)).trim() || fallback;
      try {
        return check(answer);
      } catch (err) {
        if (!(err instanceof UsageError)) throw err;
        asker!.say(err.message);
      }
    }
  };

  let dir = invocation.dir;
  if (dir === undefined) {
    if (!interactive) throw new UsageError('a folder is required: create-controller <dir>');
    dir = await ask('Folder?', 'my-controller', (a) => a);
  }
  const defaultName = basename(resolve(dir)).toLowerCase();
  const name =
    invocation.name ??
    (interactive ? await ask('Name?', defaultName, (a) => (checkProjectName(a), a)) : (checkProjectName(defaultName), defaultName));
  let provider = invocation.provider;
  if (provider === undefined && interactive) {
    asker.say(providerIds.map((id) => `  ${id.padEnd(20)} ${providerChoice(id, name).summary}`).join('\n'));
    provider = await ask('Provider?', 'kubeconfig-secrets', (a): ProviderId => (checkProviderId(a), a));
  }
  return { dir, name, provider: provider ?? 'kubeconfig-secrets' };
}
