// A stand-in for the `kind` CLI, for tests that run it as a real child process. It answers
// `kind get clusters` and `kind get kubeconfig --name N` from the JSON state file named by FAKE_KIND_STATE:
//
//   { "clusters": { "<name>": "<kubeconfig YAML>" },
//     "behaviour": { "get clusters": { "exitCode": 1, "stderr": "…", "stdout": "…", "hang": true },
//                    "get kubeconfig <name>": { … } } }
//
// "behaviour" entries override the normal answer for one command, so a test can make the CLI fail, hang or print
// garbage. Every invocation is appended to FAKE_KIND_LOG (one JSON line) when that variable is set.
import { appendFileSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (process.env.FAKE_KIND_LOG) appendFileSync(process.env.FAKE_KIND_LOG, `${JSON.stringify(args)}\n`);

const statePath = process.env.FAKE_KIND_STATE;
if (!statePath) {
  process.stderr.write('fake kind: FAKE_KIND_STATE is not set\n');
  process.exit(2);
}
const state = JSON.parse(readFileSync(statePath, 'utf8'));
const clusters = state.clusters ?? {};

function flag(name) {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const eq = args.find((a) => a.startsWith(`${name}=`));
  return eq?.slice(name.length + 1);
}

let command;
if (args[0] === 'get' && args[1] === 'clusters') command = 'get clusters';
else if (args[0] === 'get' && args[1] === 'kubeconfig') command = `get kubeconfig ${flag('--name') ?? 'kind'}`;
else if (args[0] === 'version') command = 'version';
else {
  process.stderr.write(`ERROR: unknown command "${args.join(' ')}" for "kind"\n`);
  process.exit(1);
}

const override = state.behaviour?.[command];
if (override) {
  if (override.stdout) process.stdout.write(override.stdout);
  if (override.stderr) process.stderr.write(override.stderr);
  // Hanging means never answering: the provider's timeout must end this process.
  if (override.hang) setInterval(() => {}, 1 << 30);
  else process.exit(override.exitCode ?? 0);
} else if (command === 'get clusters') {
  const names = Object.keys(clusters).sort();
  if (names.length === 0) process.stderr.write('No kind clusters found.\n');
  else process.stdout.write(`${names.join('\n')}\n`);
} else if (command === 'version') {
  process.stdout.write('kind v0.0.0-fake go1.26 linux/amd64\n');
} else {
  const name = command.slice('get kubeconfig '.length);
  const kubeconfig = clusters[name];
  if (kubeconfig === undefined) {
    process.stderr.write(
      `ERROR: could not locate any control plane nodes for cluster named '${name}'. Use the --name option to select a different cluster\n`,
    );
    process.exit(1);
  }
  process.stdout.write(kubeconfig);
}
