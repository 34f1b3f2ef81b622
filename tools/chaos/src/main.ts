#!/usr/bin/env node
/** `npm run chaos`: one soak, a report, and exit 1 when anything was lost (2 for bad options). */
import { ChaosArgsError, parseChaosArgs, USAGE } from './args.js';
import { renderReport } from './report.js';
import { runSoak } from './soak.js';

async function main(): Promise<number> {
  let args;
  try {
    args = parseChaosArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof ChaosArgsError)) throw err;
    process.stderr.write(`${err.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (!args) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const report = await runSoak(args, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(renderReport(report));
  return report.failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    process.stderr.write(`chaos: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
