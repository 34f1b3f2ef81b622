/**
 * A throwaway npm registry for the release test: Verdaccio 6 listening on 127.0.0.1 only, its storage in a temp
 * folder. Our scope lives there alone (never proxied, so nothing from the public registry mixes in); every other
 * package comes through an uplink to the registry this machine's npm uses. Verdaccio is installed from
 * tools/pack-test/registry's lockfile into a cache folder (not the workspace install) and needs Node ≥ 22: on an
 * older Node it runs on the pinned Node 24 of tools/node/install.sh.
 * Everything that publishes goes through {@link assertLocalRegistry}: nothing may reach a registry but this one.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { npmEnv } from '../consumer-project.js';
import { repoRoot, workspacePackages } from '../workspace.js';

const run = promisify(execFile);

/** How long Verdaccio may take to listen (it loads ~300 modules; the machine may be busy). */
const startTimeoutMs = 120_000;

/** What was locked: the registry's package.json and package-lock.json. */
const lockDir = join(repoRoot, 'tools/pack-test/registry');

export class LocalRegistryError extends Error {
  override readonly name = 'LocalRegistryError';
  constructor(what: string, output = '') {
    super(output ? `${what}:\n${output.trim().split('\n').slice(-30).join('\n')}` : what);
  }
}

/** A registry URL that is not this machine's loopback: refusing it is what keeps a test from publishing for real. */
export class NotLocalRegistryError extends Error {
  override readonly name = 'NotLocalRegistryError';
  constructor(
    readonly url: string,
    where: string,
  ) {
    super(`refusing to publish: ${where} is ${JSON.stringify(url)}, not http://127.0.0.1:<port>/`);
  }
}

/** Throws unless `url` is plain HTTP to 127.0.0.1 (a typo, a default or a stray .npmrc must never publish). */
export function assertLocalRegistry(url: string | undefined, where: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url ?? '');
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol !== 'http:' || parsed.hostname !== '127.0.0.1' || parsed.port === '') {
    throw new NotLocalRegistryError(url ?? '', where);
  }
}

/**
 * Throws unless everything npm would publish from the workspace `dir` (run with `env`) goes to `registry`: npm's
 * effective `registry` and scope registry there, and no package's `publishConfig` naming another (npm obeys that
 * over any flag or setting).
 */
export async function assertPublishesOnlyTo(registry: string, dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  assertLocalRegistry(registry, 'the registry to publish to');
  const keys = ['registry', '@multicluster-runtime:registry'];
  // With several keys npm prints `key=value` lines.
  const { stdout } = await run('npm', ['config', 'get', ...keys], { cwd: dir, env });
  const values = new Map(stdout.split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1).trim()]));
  for (const key of keys) {
    const value = values.get(key) ?? '';
    assertLocalRegistry(value, `npm config get ${key} in ${dir}`);
    if (value !== registry) throw new NotLocalRegistryError(value, `npm config get ${key} in ${dir} (expected ${registry})`);
  }
  for (const p of workspacePackages(dir)) {
    for (const [key, value] of Object.entries(p.manifest.publishConfig ?? {})) {
      if (/registry$/.test(key)) assertLocalRegistry(String(value), `${p.relDir}/package.json publishConfig.${key}`);
    }
  }
}

export interface RegistryVersions {
  /** In the order they were published. */
  versions: string[];
  latest: string | undefined;
}

export class LocalRegistry {
  private constructor(
    /** `http://127.0.0.1:<port>/` */
    readonly url: string,
    /** An npmrc pointing npm (registry, our scope, the publish token) at this registry only. */
    readonly npmrc: string,
    private readonly dir: string,
    private readonly child: ChildProcess,
    private readonly exited: Promise<void>,
    private readonly output: () => string,
  ) {}

  /** Starts Verdaccio on a free loopback port with an empty storage and one user, whose token `npmrc` holds. */
  static async start(signal?: AbortSignal): Promise<LocalRegistry> {
    const entry = await installVerdaccio(signal);
    const node = await nodeForVerdaccio(signal);
    const dir = mkdtempSync(join(tmpdir(), 'local-registry-'));
    const uplink = (await run('npm', ['config', 'get', 'registry'], { env: npmEnv(), signal })).stdout.trim();
    const config = {
      storage: join(dir, 'storage'),
      auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: 1 } },
      uplinks: { upstream: { url: uplink, timeout: '60s' } },
      packages: {
        '@multicluster-runtime/*': { access: '$all', publish: '$authenticated' },
        '**': { access: '$all', publish: '$authenticated', proxy: 'upstream' },
      },
      web: { enable: false },
      log: { type: 'stdout', format: 'pretty', level: 'warn' },
    };
    // JSON is YAML: no YAML writer needed.
    writeFileSync(join(dir, 'config.yaml'), JSON.stringify(config, null, 2));

    // runServer gives an unstarted http.Server: listening on port 0 ourselves tells us the port with no race.
    const launcher = `
      const { runServer } = await import(process.argv[1]);
      const server = await runServer(process.argv[2]);
      server.listen(0, '127.0.0.1', () => console.log('LISTENING ' + server.address().port));
      process.on('SIGTERM', () => server.close(() => process.exit(0)));`;
    const child = spawn(node, ['--input-type=module', '--eval', launcher, pathToFileURL(entry).href, join(dir, 'config.yaml')], {
      cwd: dir,
      // This environment: the uplink may need its CA or proxy settings (NODE_EXTRA_CA_CERTS, HTTPS_PROXY).
      env: npmEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const port = new Promise<string>((resolve, reject) => {
      const onData = (s: string) => {
        out += s;
        const m = /LISTENING (\d+)/.exec(out);
        if (m) resolve(m[1]!);
      };
      child.stdout.setEncoding('utf8').on('data', onData);
      child.stderr.setEncoding('utf8').on('data', onData);
      child.on('close', (code) => reject(new LocalRegistryError(`verdaccio exited (${code}) before listening`, out)));
    });
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LocalRegistryError(`verdaccio did not listen within ${startTimeoutMs} ms`, out)), startTimeoutMs);
    });
    let url: string;
    try {
      url = `http://127.0.0.1:${await Promise.race([port, late])}/`;
    } catch (err) {
      child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
      throw err;
    } finally {
      clearTimeout(timer);
    }
    const registry = new LocalRegistry(url, join(dir, 'npmrc'), dir, child, exited, () => out);
    try {
      await registry.addUser();
    } catch (err) {
      await registry.close();
      throw err;
    }
    return registry;
  }

  /** Registers the one user (npm's adduser call) and writes the npmrc with its token. */
  private async addUser(): Promise<void> {
    const name = 'release-test';
    const res = await fetch(`${this.url}-/user/org.couchdb.user:${name}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, password: createHash('sha256').update(this.dir).digest('hex'), type: 'user', roles: [] }),
    });
    const body = (await res.json().catch(() => ({}))) as { token?: string };
    if (!res.ok || !body.token) throw new LocalRegistryError(`adding a user to ${this.url} answered ${res.status}`, this.output());
    const host = this.url.replace(/^http:/, '');
    writeFileSync(
      this.npmrc,
      [`registry=${this.url}`, `@multicluster-runtime:registry=${this.url}`, `${host}:_authToken=${body.token}`, ''].join('\n'),
      { mode: 0o600 },
    );
  }

  /**
   * The environment for npm and nx in a child process: this npmrc as the user config, and the registry settings as
   * npm_config_ variables, which win over any project .npmrc.
   */
  env(): NodeJS.ProcessEnv {
    return {
      ...npmEnv(),
      npm_config_userconfig: this.npmrc,
      npm_config_registry: this.url,
      'npm_config_@multicluster-runtime:registry': this.url,
    };
  }

  /** The versions of `name` this registry holds, and its `latest` tag. */
  async versions(name: string): Promise<RegistryVersions> {
    const res = await fetch(`${this.url}${name.replace('/', '%2f')}`);
    if (res.status === 404) return { versions: [], latest: undefined };
    if (!res.ok) throw new LocalRegistryError(`GET ${name} from ${this.url} answered ${res.status}`, this.output());
    const doc = (await res.json()) as { versions?: Record<string, unknown>; 'dist-tags'?: Record<string, string> };
    return { versions: Object.keys(doc.versions ?? {}), latest: doc['dist-tags']?.['latest'] };
  }

  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Verdaccio's ESM entry in the cache folder for the current lockfile, installed there with `npm ci` when missing
 * (into a sibling temp folder, then renamed, so a half-done install is never used).
 */
async function installVerdaccio(signal?: AbortSignal): Promise<string> {
  const lock = readFileSync(join(lockDir, 'package-lock.json'));
  const hash = createHash('sha256')
    .update(readFileSync(join(lockDir, 'package.json')))
    .update(lock)
    .digest('hex')
    .slice(0, 12);
  const dir = join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'multicluster-runtime', `verdaccio-${hash}`);
  const entry = join(dir, 'node_modules/verdaccio/build/index.mjs');
  if (existsSync(entry)) return entry;
  mkdirSync(dirname(dir), { recursive: true });
  const tmp = mkdtempSync(`${dir}.tmp.`);
  try {
    cpSync(join(lockDir, 'package.json'), join(tmp, 'package.json'));
    cpSync(join(lockDir, 'package-lock.json'), join(tmp, 'package-lock.json'));
    await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: tmp,
      env: npmEnv(),
      signal,
      maxBuffer: 16 * 1024 * 1024,
    });
    if (!existsSync(entry)) renameSync(tmp, dir);
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new LocalRegistryError('installing verdaccio failed', `${e.stdout ?? ''}${e.stderr ?? ''}` || String(err));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return entry;
}

/** This Node when it can run Verdaccio 6 (≥ 22), else the pinned Node 24 (cached by tools/node/install.sh). */
async function nodeForVerdaccio(signal?: AbortSignal): Promise<string> {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const { stdout } = await run(join(repoRoot, 'tools/node/install.sh'), ['24'], { signal, env: npmEnv() });
  return join(stdout.trim().split('\n').at(-1) ?? '', 'node');
}
