/**
 * Exec plugin credentials through the Transport, with a real plugin (a shell script in a temp dir that counts its
 * runs in a file) and a real HTTP server that checks bearer tokens: one run for many concurrent requests, one
 * refresh after a 401, expiry, failures that keep the credential out of the error, timeouts, KUBERNETES_EXEC_INFO.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CredentialError, isUnauthorized } from './errors.js';
import { Transport, type TransportOptions } from './transport.js';

const plugin = `#!/bin/sh
dir="$(dirname "$0")"
echo run >> "$dir/runs"
n=$(wc -l < "$dir/runs" | tr -d ' ')
printf '%s' "$KUBERNETES_EXEC_INFO" > "$dir/info-$n.json"
[ -f "$dir/expiry" ] && EXPIRY="$(cat "$dir/expiry")"
case "$(cat "$dir/mode" 2>/dev/null)" in
  fail) echo "could not mint tok-$n" >&2; exit 3 ;;
  hang) exec sleep 30 ;;
  garbage) echo "tok-$n is not JSON"; exit 0 ;;
esac
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tok-%s","expirationTimestamp":"%s"}}' "$n" "$EXPIRY"
`;

let dir: string;
let server: Server;
let url: string;
/** Tokens the server accepts. */
let accepted: Set<string>;
const transports: Transport[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'exec-plugin-'));
  await writeFile(join(dir, 'plugin.sh'), plugin);
  await chmod(join(dir, 'plugin.sh'), 0o755);
  accepted = new Set(['tok-1']);
  server = createServer((req, res) => {
    const token = (req.headers['authorization'] ?? '').replace(/^Bearer /, '');
    const ok = accepted.has(token);
    res.writeHead(ok ? 200 : 401, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(ok ? { token } : { kind: 'Status', code: 401, reason: 'Unauthorized', message: 'Unauthorized' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

function transportWith(exec: Record<string, unknown> = {}, options: TransportOptions = {}): Transport {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: false }],
    users: [
      {
        name: 'u',
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: join(dir, 'plugin.sh'),
          env: [{ name: 'EXPIRY', value: '' }],
          ...exec,
        },
      },
    ],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  const t = Transport.forConfig(kc, options);
  transports.push(t);
  return t;
}

async function runs(): Promise<number> {
  const text = await readFile(join(dir, 'runs'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).length;
}

const get = (t: Transport) => t.request<{ token: string }>({ method: 'GET', path: '/api' });

describe('exec plugin credentials', () => {
  it('runs the plugin once for 50 concurrent requests and reuses the credential', async () => {
    const t = transportWith();
    const answers = await Promise.all(Array.from({ length: 50 }, () => get(t)));
    expect(new Set(answers.map((a) => a.token))).toEqual(new Set(['tok-1']));
    await get(t);
    expect(await runs()).toBe(1);
  });

  it('after a 401 runs the plugin once more and retries, for 50 concurrent requests', async () => {
    accepted = new Set(['tok-2']);
    const t = transportWith();
    const answers = await Promise.all(Array.from({ length: 50 }, () => get(t)));
    expect(new Set(answers.map((a) => a.token))).toEqual(new Set(['tok-2']));
    expect(await runs()).toBe(2);
  });

  it('retries a 401 only once: a credential the server never accepts gives ApiError Unauthorized', async () => {
    accepted = new Set();
    const t = transportWith();
    const err = await get(t).catch((e: unknown) => e);
    expect(isUnauthorized(err)).toBe(true);
    expect(await runs()).toBe(2);
  });

  it('runs the plugin again once the credential expired', async () => {
    accepted = new Set(['tok-1', 'tok-2']);
    let now = Date.now();
    const t = transportWith({ env: [{ name: 'EXPIRY', value: new Date(now + 3_600_000).toISOString() }] }, { exec: { now: () => now } });
    await get(t);
    await get(t);
    expect(await runs()).toBe(1);
    now += 2 * 3_600_000;
    await writeFile(join(dir, 'expiry'), new Date(now + 3_600_000).toISOString());
    expect((await get(t)).token).toBe('tok-2');
    expect(await runs()).toBe(2);
  });

  it('refuses a credential that has already expired, naming the expiry and not the token', async () => {
    await writeFile(join(dir, 'expiry'), new Date(Date.now() - 60_000).toISOString());
    const err = await get(transportWith()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CredentialError);
    expect((err as Error).message).toMatch(/printed no valid ExecCredential: the credential expired at \d{4}-/);
    expect((err as Error).message).not.toMatch(/tok-/);
  });

  it('passes KUBERNETES_EXEC_INFO (non-interactive, with cluster info when asked) and the env entries', async () => {
    const t = transportWith({ provideClusterInfo: true });
    await get(t);
    const info = JSON.parse(await readFile(join(dir, 'info-1.json'), 'utf8'));
    expect(info).toMatchObject({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server: url } },
    });
    expect(info.spec.cluster).not.toHaveProperty('config');
  });

  it("sends the exec config's cluster data as spec.cluster.config, only with provideClusterInfo", async () => {
    const config = { clusterName: 'spoke-1' };
    accepted.add('tok-2');
    await get(transportWith({ provideClusterInfo: true, config }));
    await get(transportWith({ config }));
    const [first, second] = await Promise.all([1, 2].map(async (n) => JSON.parse(await readFile(join(dir, `info-${n}.json`), 'utf8'))));
    expect(first.spec.cluster.config).toEqual(config);
    expect(second.spec).not.toHaveProperty('cluster');
  });

  it('fails with a CredentialError that names the plugin but not its output', async () => {
    for (const mode of ['fail', 'garbage']) {
      await writeFile(join(dir, 'mode'), mode);
      const t = transportWith();
      const err = await get(t).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CredentialError);
      expect((err as Error).message).toContain('plugin.sh');
      expect((err as Error).message).not.toMatch(/tok-/);
    }
  });

  it('does not cache a failure: the next request runs the plugin again', async () => {
    await writeFile(join(dir, 'mode'), 'fail');
    const t = transportWith();
    await expect(get(t)).rejects.toBeInstanceOf(CredentialError);
    await writeFile(join(dir, 'mode'), '');
    accepted = new Set(['tok-2']);
    expect((await get(t)).token).toBe('tok-2');
  });

  it('kills a plugin that hangs and reports the timeout', async () => {
    await writeFile(join(dir, 'mode'), 'hang');
    const t = transportWith({}, { exec: { timeoutMs: 300 } });
    await expect(get(t)).rejects.toThrow(/did not finish within 300 ms/);
  });

  it('reports a plugin that cannot be started, with the install hint', async () => {
    const t = transportWith({ command: join(dir, 'missing-plugin'), installHint: 'install it with: brew install plugin' });
    await expect(get(t)).rejects.toThrow(/could not be started: ENOENT \(install it with: brew install plugin\)/);
  });

  it('refuses a plugin that always needs a terminal', () => {
    expect(() => transportWith({ interactiveMode: 'Always' })).toThrow(/needs an interactive terminal/);
  });
});
