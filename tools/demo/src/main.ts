#!/usr/bin/env node
/**
 * `npm start`: runs the demo (see demo.ts). By default an embedded fleet of in-memory API servers whose members join
 * and leave through kubeconfig files, under two multi-cluster controllers, with a live view; `--duration N` stops by
 * itself and prints a summary. Flags point the same controllers at real clusters instead.
 */
import { signalHandler } from '@multicluster-runtime/core';
import { parseDemoArgs, usage, UsageError, type DemoArgs } from './args.js';
import { runDemo } from './demo.js';

let args: DemoArgs | undefined;
try {
  args = parseDemoArgs(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  process.stderr.write(`${err.message}\n\n${usage}`);
  process.exit(2);
}
if (!args) {
  process.stdout.write(usage);
} else {
  runDemo(args, signalHandler()).then(
    () => process.exit(0),
    (err: unknown) => {
      if (err instanceof UsageError) {
        process.stderr.write(`${err.message}\n`);
        process.exit(2);
      }
      process.stderr.write(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
