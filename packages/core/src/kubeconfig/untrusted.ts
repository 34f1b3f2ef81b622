/**
 * Loading kubeconfigs that arrive from Secrets, files or CLIs: untrusted input. A kubeconfig can run programs
 * (`exec`, `auth-provider`), read local files (`certificate-authority`, `client-key`, `token-file`, …) or turn TLS
 * verification off; each of those is refused unless the caller allows it explicitly. The document is parsed and
 * checked here, and the KubeConfig is built from the checked fields only, so client-node never sees (and never
 * acts on) anything that was not allowed. Errors name the offending field, never a credential.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { Cluster as KcCluster, Context as KcContext, User as KcUser } from '@kubernetes/client-node';
import { X509Certificate, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { arrayOf, nonEmptyString, oneOf, positiveInteger, type Shape } from '../options/rules.js';

/** client-node's User, with the fields this module writes made mutable. */
type KubeconfigUserFields = { -readonly [K in keyof KcUser]: KcUser[K] };

/** What an untrusted kubeconfig may do beyond inline certificates, tokens and basic auth. */
export type KubeconfigCapability =
  /** Run a credential plugin (`users[].user.exec`). */
  | 'exec'
  /** Use a legacy auth provider (`users[].user.auth-provider`: gcp, azure, oidc, exec). */
  | 'authProvider'
  /** Read local files: certificate-authority, client-certificate, client-key, token-file. */
  | 'localFiles'
  /** Disable TLS verification (`insecure-skip-tls-verify: true`) or use a plain `http://` server. */
  | 'insecureTransport';

/**
 * What an untrusted kubeconfig may do beyond inline certificates, tokens and basic auth; nothing by default.
 */
export interface KubeconfigPolicy {
  /** Capabilities to allow. Default: none. */
  allow?: readonly KubeconfigCapability[];
  /** With `exec` allowed, the only plugin commands that may run (exact match). Default: any command. */
  execCommands?: readonly string[];
  /** Largest accepted document in bytes. Default 1 MiB. */
  maxBytes?: number;
}

/** The rules of a KubeconfigPolicy, for providers that check their options when given (a mistyped capability is refused). */
export const kubeconfigPolicyShape: Shape<KubeconfigPolicy> = {
  allow: arrayOf(oneOf('exec', 'authProvider', 'localFiles', 'insecureTransport')),
  execCommands: arrayOf(nonEmptyString),
  maxBytes: positiveInteger,
};

/** Options of loadUntrustedKubeconfig besides the policy: which context to take. */
export interface LoadKubeconfigOptions {
  /** Use this context instead of `current-context`. */
  context?: string;
}

/** A field of an untrusted kubeconfig that the policy refused. */
export interface KubeconfigViolation {
  /** Where, e.g. `users[0](admin).user.exec`. */
  path: string;
  capability: KubeconfigCapability;
}

/** Base class of kubeconfig loading errors. */
export class KubeconfigError extends Error {
  override readonly name: string = 'KubeconfigError';
}

/** The document is not a usable kubeconfig (bad YAML, missing context, cluster or server). Retrying will not help. */
export class KubeconfigInvalidError extends KubeconfigError {
  override readonly name = 'KubeconfigInvalidError';
}

/** The kubeconfig asks for capabilities the policy does not allow. Retrying will not help. */
export class KubeconfigRejectedError extends KubeconfigError {
  override readonly name = 'KubeconfigRejectedError';
  constructor(readonly violations: readonly KubeconfigViolation[]) {
    super(
      `kubeconfig rejected: ${violations.map((v) => `${v.path} needs "${v.capability}"`).join('; ')}` +
        ' (allow it explicitly in the provider options if this source is trusted)',
    );
  }
}

type Dict = Record<string, unknown>;

function isDict(v: unknown): v is Dict {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function namedEntries(doc: Dict, key: string, inner: string): Array<{ name: string; body: Dict; path: string }> {
  const list = doc[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new KubeconfigInvalidError(`${key} must be a list`);
  return list.map((entry, i) => {
    if (!isDict(entry) || !str(entry['name'])) throw new KubeconfigInvalidError(`${key}[${i}].name is missing`);
    const name = entry['name'] as string;
    const body = entry[inner] ?? {};
    if (!isDict(body)) throw new KubeconfigInvalidError(`${key}[${i}](${name}).${inner} must be a mapping`);
    return { name, body, path: `${key}[${i}](${name}).${inner}` };
  });
}

function parseDocument(text: string, maxBytes: number): Dict {
  if (Buffer.byteLength(text) > maxBytes) throw new KubeconfigInvalidError(`kubeconfig is larger than ${maxBytes} bytes`);
  let doc: unknown;
  try {
    // Aliases are capped so a "billion laughs" document cannot exhaust memory.
    doc = parseYaml(text, { maxAliasCount: 32, uniqueKeys: true, prettyErrors: false });
  } catch (err) {
    // The YAML error names a line and column, not the content, so it is safe to pass on.
    throw new KubeconfigInvalidError(`kubeconfig is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isDict(doc)) throw new KubeconfigInvalidError('kubeconfig must be a YAML mapping');
  return doc;
}

let parsedKubeconfig: (doc: Dict) => ParsedKubeconfig;
let documentOfParsed: (parsed: ParsedKubeconfig) => Dict;

/**
 * An untrusted kubeconfig parsed once, to list its contexts and load several of them without parsing the YAML again
 * for each (parsing is most of what loading costs). Opaque: nothing in it is checked against a policy until it is
 * loaded, and it shows none of its content (credentials) when logged.
 */
export class ParsedKubeconfig {
  readonly #doc: Dict;
  private constructor(doc: Dict) {
    this.#doc = doc;
  }
  static {
    parsedKubeconfig = (doc) => new ParsedKubeconfig(doc);
    documentOfParsed = (parsed) => parsed.#doc;
  }
}
/** Untrusted kubeconfig input: its text, as a string or bytes, or a document already parsed. */
export type KubeconfigSource = string | Uint8Array | ParsedKubeconfig;

/**
 * Parses an untrusted kubeconfig (YAML, at most `policy.maxBytes`, aliases capped) for {@link listKubeconfigContexts}
 * and {@link loadUntrustedKubeconfig}, which then skip the parsing. Only `maxBytes` of the policy is read here; the
 * rest applies when a context is loaded. Throws KubeconfigInvalidError.
 */
export function parseUntrustedKubeconfig(text: string | Uint8Array, policy: KubeconfigPolicy = {}): ParsedKubeconfig {
  const source = typeof text === 'string' ? text : Buffer.from(text).toString('utf8');
  return parsedKubeconfig(parseDocument(source, policy.maxBytes ?? 1024 * 1024));
}

function documentOf(input: KubeconfigSource, policy: Pick<KubeconfigPolicy, 'maxBytes'>): Dict {
  return documentOfParsed(input instanceof ParsedKubeconfig ? input : parseUntrustedKubeconfig(input, policy));
}

/**
 * The context names of an untrusted kubeconfig, in document order, without checking what they refer to (load each
 * with {@link loadUntrustedKubeconfig} and its `context` option for that). Throws KubeconfigInvalidError.
 */
export function listKubeconfigContexts(input: KubeconfigSource, policy: Pick<KubeconfigPolicy, 'maxBytes'> = {}): string[] {
  return namedEntries(documentOf(input, policy), 'contexts', 'context').map((c) => c.name);
}

/**
 * Parses an untrusted kubeconfig (unless given one parsed) and returns a KubeConfig holding only the selected
 * context, its cluster and its user. Throws KubeconfigInvalidError or KubeconfigRejectedError.
 */
export function loadUntrustedKubeconfig(
  input: KubeconfigSource,
  policy: KubeconfigPolicy = {},
  options: LoadKubeconfigOptions = {},
): KubeConfig {
  const doc = documentOf(input, policy);
  const allowed = new Set(policy.allow ?? []);
  const violations: KubeconfigViolation[] = [];
  const need = (path: string, capability: KubeconfigCapability): void => {
    if (!allowed.has(capability)) violations.push({ path, capability });
  };

  const contexts = namedEntries(doc, 'contexts', 'context');
  const contextName = options.context ?? str(doc['current-context']);
  if (!contextName) throw new KubeconfigInvalidError('kubeconfig has no current-context and none was requested');
  const context = contexts.find((c) => c.name === contextName);
  if (!context) throw new KubeconfigInvalidError(`context ${JSON.stringify(contextName)} not found in kubeconfig`);
  const clusterName = str(context.body['cluster']);
  const userName = str(context.body['user']);
  if (!clusterName) throw new KubeconfigInvalidError(`context ${JSON.stringify(contextName)} names no cluster`);

  const cluster = namedEntries(doc, 'clusters', 'cluster').find((c) => c.name === clusterName);
  if (!cluster) throw new KubeconfigInvalidError(`cluster ${JSON.stringify(clusterName)} not found in kubeconfig`);
  const server = str(cluster.body['server']);
  if (!server) throw new KubeconfigInvalidError(`${cluster.path}.server is missing`);
  let serverUrl: URL;
  try {
    serverUrl = new URL(server);
  } catch {
    throw new KubeconfigInvalidError(`${cluster.path}.server is not a URL`);
  }
  if (serverUrl.protocol !== 'https:' && serverUrl.protocol !== 'http:') {
    throw new KubeconfigInvalidError(`${cluster.path}.server must be an https:// URL`);
  }
  if (serverUrl.username || serverUrl.password) {
    throw new KubeconfigInvalidError(`${cluster.path}.server must not carry credentials`);
  }
  if (serverUrl.protocol === 'http:') need(`${cluster.path}.server`, 'insecureTransport');
  const skipTLSVerify = cluster.body['insecure-skip-tls-verify'] === true;
  if (skipTLSVerify) need(`${cluster.path}.insecure-skip-tls-verify`, 'insecureTransport');
  const caData = str(cluster.body['certificate-authority-data']);
  const caProblem = caData === undefined ? undefined : certificateAuthorityProblem(caData);
  if (caProblem) throw new KubeconfigInvalidError(`${cluster.path}.certificate-authority-data ${caProblem}`);
  const caFile = str(cluster.body['certificate-authority']);
  if (caFile) need(`${cluster.path}.certificate-authority`, 'localFiles');
  const proxyUrl = str(cluster.body['proxy-url']);

  // A context without a user is legal, but client-node then skips TLS options entirely (its applyHTTPSOptions
  // returns early), so an empty user is supplied instead.
  let user: KubeconfigUserFields = { name: userName ?? 'anonymous' };
  if (userName) {
    const entry = namedEntries(doc, 'users', 'user').find((u) => u.name === userName);
    if (!entry) throw new KubeconfigInvalidError(`user ${JSON.stringify(userName)} not found in kubeconfig`);
    user = checkUser(entry.name, entry.body, entry.path, need, policy, allowed);
  }

  if (violations.length > 0) throw new KubeconfigRejectedError(violations);

  const kcCluster: KcCluster = {
    name: cluster.name,
    server: server.replace(/\/$/, ''),
    skipTLSVerify,
    ...(caData ? { caData } : {}),
    ...(caFile ? { caFile } : {}),
    ...(str(cluster.body['tls-server-name']) ? { tlsServerName: str(cluster.body['tls-server-name']) } : {}),
    ...(proxyUrl ? { proxyUrl } : {}),
  };
  const kcContext: KcContext = {
    name: context.name,
    cluster: cluster.name,
    user: user.name,
    ...(str(context.body['namespace']) ? { namespace: str(context.body['namespace']) } : {}),
  };
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: [kcCluster], users: [user], contexts: [kcContext], currentContext: kcContext.name });
  return kc;
}

/**
 * What is wrong with a `certificate-authority-data` value, or undefined when it is base64 of one or more PEM
 * certificates that all parse. Node's TLS would skip a CA it cannot parse and fail only at the handshake; client-go
 * refuses such a config when it is built, and so does loading here. The answer names no part of the value.
 */
export function certificateAuthorityProblem(base64: string): string | undefined {
  const compact = base64.replace(/\s/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return 'is not base64';
  const pem = Buffer.from(compact, 'base64').toString('utf8');
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return 'holds no PEM certificate';
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      return 'holds a certificate that does not parse';
    }
  }
  return undefined;
}

function checkUser(
  name: string,
  body: Dict,
  path: string,
  need: (path: string, capability: KubeconfigCapability) => void,
  policy: KubeconfigPolicy,
  allowed: ReadonlySet<KubeconfigCapability>,
): KubeconfigUserFields {
  const user: KubeconfigUserFields = { name };
  for (const key of ['client-certificate', 'client-key', 'token-file', 'tokenFile'] as const) {
    if (str(body[key])) need(`${path}.${key}`, 'localFiles');
  }
  if (body['auth-provider'] !== undefined && body['auth-provider'] !== null) need(`${path}.auth-provider`, 'authProvider');
  const exec = body['exec'];
  if (exec !== undefined && exec !== null) {
    need(`${path}.exec`, 'exec');
    const command = isDict(exec) ? str(exec['command']) : undefined;
    if (!command) throw new KubeconfigInvalidError(`${path}.exec.command is missing`);
    if (policy.execCommands && policy.execCommands.length > 0 && !policy.execCommands.includes(command)) {
      throw new KubeconfigRejectedError([{ path: `${path}.exec.command`, capability: 'exec' }]);
    }
    // A copy: several KubeConfigs may be loaded from one parsed document, and none may change another's.
    user.exec = structuredClone(exec);
  }
  const copy: Array<[string, keyof KcUser]> = [
    ['client-certificate-data', 'certData'],
    ['client-key-data', 'keyData'],
    ['client-certificate', 'certFile'],
    ['client-key', 'keyFile'],
    ['token', 'token'],
    ['username', 'username'],
    ['password', 'password'],
    ['as', 'impersonateUser'],
  ];
  for (const [from, to] of copy) {
    const value = str(body[from]);
    if (value) (user as Dict)[to] = value;
  }
  if (isDict(body['auth-provider'])) user.authProvider = structuredClone(body['auth-provider']);
  // client-node would read token-file while loading; it is read here only when local files are allowed.
  const tokenFile = str(body['token-file']) ?? str(body['tokenFile']);
  if (tokenFile && allowed.has('localFiles') && !user.token) {
    try {
      user.token = readFileSync(tokenFile, 'utf8').trim();
    } catch {
      throw new KubeconfigInvalidError(`${path}.token-file cannot be read`);
    }
  }
  return user;
}

/**
 * A digest of what a KubeConfig connects to and as whom (current context's server, TLS settings and credentials, and
 * its default namespace). The names of the context, cluster and user entries are not part of it: renaming them
 * connects to nothing new. Providers compare fingerprints to decide whether a changed kubeconfig needs a new
 * cluster; the digest reveals nothing about the credentials.
 */
export function connectionFingerprint(kc: KubeConfig): string {
  const unnamed = <T extends { name?: string }>(entry: T | null | undefined) => {
    if (!entry) return null;
    const { name: _name, ...rest } = entry;
    return rest;
  };
  const context = kc.getContextObject(kc.getCurrentContext());
  return createHash('sha256')
    .update(JSON.stringify([unnamed(kc.getCurrentCluster()), unnamed(kc.getCurrentUser()), context?.namespace ?? null]))
    .digest('hex');
}
