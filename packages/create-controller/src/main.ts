#!/usr/bin/env node
/**
 * `npm init @multicluster-runtime/controller <dir>` (npm runs this package's bin): scaffolds the project and says
 * what to run next. Exit 0 when written, 2 for a usage error, 1 when the folder is not empty or anything else fails.
 */
import { relative } from 'node:path';
import { terminalAsker, parseCommandLine, resolveOptions, usage } from './cli.js';
import { UsageError } from './errors.js';
import { scaffold } from './scaffold.js';

async function main(argv: string[]): Promise<number> {
  const invocation = parseCommandLine(argv);
  if (invocation.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const asker = invocation.yes ? undefined : terminalAsker();
  let options;
  try {
    options = await resolveOptions(invocation, asker);
  } finally {
    asker?.close();
  }
  const { dir, files } = scaffold(options);
  const where = relative(process.cwd(), dir) || '.';
  process.stdout.write(
    `Wrote ${files.length} files for ${options.name} (provider ${options.provider}) into ${where}.\n\n` +
      `Next:\n  cd ${where}\n  npm install\n  npm test        # the sample controller on in-memory API servers\n  npm start       # on your current kubeconfig context\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    const usageError = err instanceof UsageError;
    process.stderr.write(`create-controller: ${(err as Error).message ?? String(err)}\n${usageError ? `\n${usage}\n` : ''}`);
    process.exitCode = usageError ? 2 : 1;
  },
);
