// A stand-in for the `docker` CLI, answering the few commands the real kind CLI (sigs.k8s.io/kind, docker provider)
// runs for `kind get clusters` and `kind get kubeconfig --name N`, from the same JSON state file as the fake kind
// (FAKE_KIND_STATE: { "clusters": { "<name>": "<kubeconfig YAML of an in-memory server>" } }). Each cluster is one
// container `<name>-control-plane`: `docker ps` lists it, `docker inspect` gives its role and (through the Docker
// Desktop port label kind reads first) the API server's host:port, and `docker exec … cat /etc/kubernetes/admin.conf`
// prints the kubeconfig as kubeadm writes it inside the node, with the node's internal server address, which kind
// then rewrites to that host:port. Anything else exits 1 naming the command, so a kind that needs more is caught.
// Every invocation is appended to FAKE_DOCKER_LOG (one JSON line) when that variable is set.
import { appendFileSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (process.env.FAKE_DOCKER_LOG) appendFileSync(process.env.FAKE_DOCKER_LOG, `${JSON.stringify(args)}\n`);

const CLUSTER_LABEL = 'io.x-k8s.kind.cluster';
const ROLE_LABEL = 'io.x-k8s.kind.role';
const PORT_LABEL = 'desktop.docker.io/ports/6443/tcp';
const NODE_SUFFIX = '-control-plane';

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function clusters() {
  const statePath = process.env.FAKE_KIND_STATE;
  if (!statePath) fail('fake docker: FAKE_KIND_STATE is not set');
  return JSON.parse(readFileSync(statePath, 'utf8')).clusters ?? {};
}

/** The cluster a node name belongs to, or fails as docker does for an unknown container. */
function clusterOfNode(node) {
  const name = node.endsWith(NODE_SUFFIX) ? node.slice(0, -NODE_SUFFIX.length) : undefined;
  const kubeconfig = name === undefined ? undefined : clusters()[name];
  if (kubeconfig === undefined) fail(`Error: No such object: ${node}`);
  return { name, kubeconfig };
}

function serverOf(kubeconfig) {
  const match = /^\s*server:\s*(\S+)\s*$/m.exec(kubeconfig);
  if (!match) fail('fake docker: the kubeconfig in the state file has no server line');
  return new URL(match[1]);
}

const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

if (args[0] === '-v' || args[0] === '--version') {
  process.stdout.write('Docker version 27.5.1, build fake-kind\n');
} else if (args[0] === 'ps') {
  const filter = flag('--filter') ?? '';
  const format = flag('--format') ?? '';
  const names = Object.keys(clusters()).sort();
  if (filter === `label=${CLUSTER_LABEL}` && format === `{{.Label "${CLUSTER_LABEL}"}}`) {
    if (names.length > 0) process.stdout.write(`${names.join('\n')}\n`);
  } else if (filter.startsWith(`label=${CLUSTER_LABEL}=`) && format === '{{.Names}}') {
    const name = filter.slice(`label=${CLUSTER_LABEL}=`.length);
    if (names.includes(name)) process.stdout.write(`${name}${NODE_SUFFIX}\n`);
  } else {
    fail(`fake docker: unsupported ps ${JSON.stringify(args)}`);
  }
} else if (args[0] === 'inspect') {
  const format = (flag('--format') ?? flag('-f') ?? '').replace(/\s+/g, ' ').trim();
  const { kubeconfig } = clusterOfNode(args.at(-1));
  if (format === `{{ index .Config.Labels "${ROLE_LABEL}"}}`) {
    process.stdout.write('control-plane\n');
  } else if (format === `{{ index .Config.Labels "${PORT_LABEL}" }}`) {
    process.stdout.write(`${serverOf(kubeconfig).host}\n`);
  } else {
    fail(`fake docker: unsupported inspect format ${JSON.stringify(format)}`);
  }
} else if (args[0] === 'exec') {
  const i = args.indexOf('cat');
  if (i < 2 || args[i + 1] !== '/etc/kubernetes/admin.conf') fail(`fake docker: unsupported exec ${JSON.stringify(args)}`);
  const { name, kubeconfig } = clusterOfNode(args[i - 1]);
  process.stdout.write(kubeconfig.replace(/^(\s*server:\s*)\S+\s*$/m, `$1https://${name}${NODE_SUFFIX}:6443`));
} else {
  fail(`fake docker: unsupported command ${JSON.stringify(args)}`);
}
