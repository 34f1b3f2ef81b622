import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { createCertificateAuthority } from '@multicluster-runtime/envtest';
import { afterAll, describe, expect, test } from 'vitest';
import {
  KubeconfigInvalidError,
  KubeconfigRejectedError,
  certificateAuthorityProblem,
  connectionFingerprint,
  listKubeconfigContexts,
  loadUntrustedKubeconfig,
  parseUntrustedKubeconfig,
} from './untrusted.js';

const dir = mkdtempSync(join(tmpdir(), 'mcr-kubeconfig-'));
/** A real CA certificate, base64 of its PEM, as kubeconfigs carry it. */
const caData = Buffer.from((await createCertificateAuthority()).certPem).toString('base64');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A credential plugin that leaves a marker file behind, so a test can prove whether it ever ran. */
function execPlugin(name: string): { command: string; marker: string } {
  const marker = join(dir, `${name}.ran`);
  const command = join(dir, `${name}.sh`);
  writeFileSync(
    command,
    `#!/bin/sh\ntouch '${marker}'\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-exec"}}'\n`,
  );
  chmodSync(command, 0o755);
  return { command, marker };
}

function kubeconfig(cluster: string, user: string, extra = ''): string {
  return `apiVersion: v1
kind: Config
current-context: ctx
contexts:
- name: ctx
  context: {cluster: c, user: u, namespace: team-a}
clusters:
- name: c
  cluster:
${cluster}
users:
- name: u
  user:
${user}
${extra}`;
}

const inlineCluster = `    server: https://127.0.0.1:6443\n    certificate-authority-data: ${caData}`;
const tokenUser = '    token: s3cr3t-token-value';

describe('loadUntrustedKubeconfig', () => {
  test('accepts inline certificates and tokens and keeps only the selected context', () => {
    const kc = loadUntrustedKubeconfig(kubeconfig(inlineCluster, tokenUser));
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(kc.getCurrentUser()?.token).toBe('s3cr3t-token-value');
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('team-a');
    expect(kc.getContexts()).toHaveLength(1);
  });

  const hostile = execPlugin('hostile');
  const cases: Array<[string, string, string, string]> = [
    [
      'exec plugin',
      inlineCluster,
      `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${hostile.command}`,
      'exec',
    ],
    ['auth-provider', inlineCluster, '    auth-provider:\n      name: oidc\n      config: {client-id: x}', 'authProvider'],
    ['client key file', inlineCluster, '    client-certificate: /etc/passwd\n    client-key: /etc/shadow', 'localFiles'],
    ['token file', inlineCluster, '    token-file: /var/run/secrets/kubernetes.io/serviceaccount/token', 'localFiles'],
    ['CA file', '    server: https://127.0.0.1:6443\n    certificate-authority: /etc/ssl/private/ca.pem', tokenUser, 'localFiles'],
    ['skip TLS verify', '    server: https://127.0.0.1:6443\n    insecure-skip-tls-verify: true', tokenUser, 'insecureTransport'],
    ['plain http', '    server: http://127.0.0.1:8080', tokenUser, 'insecureTransport'],
  ];
  test.each(cases)('rejects %s by default', (_name, cluster, user, capability) => {
    let error: unknown;
    try {
      loadUntrustedKubeconfig(kubeconfig(cluster, user));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(KubeconfigRejectedError);
    const rejected = error as KubeconfigRejectedError;
    expect(rejected.violations.map((v) => v.capability)).toContain(capability);
    expect(rejected.message).not.toContain('s3cr3t-token-value');
    expect(existsSync(hostile.marker)).toBe(false);
  });

  test('an allowed exec plugin runs, limited to the listed commands', async () => {
    const trusted = execPlugin('trusted');
    const text = kubeconfig(
      inlineCluster,
      `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${trusted.command}`,
    );
    expect(() => loadUntrustedKubeconfig(text, { allow: ['exec'], execCommands: ['/usr/bin/other'] })).toThrow(KubeconfigRejectedError);
    const kc = loadUntrustedKubeconfig(text, { allow: ['exec'], execCommands: [trusted.command] });
    const opts: { headers?: Record<string, string> } = { headers: {} };
    await kc.applyToHTTPSOptions(opts);
    expect(opts.headers?.['Authorization']).toBe('Bearer from-exec');
    expect(existsSync(trusted.marker)).toBe(true);
  });

  test('an allowed token file is read once, at load', () => {
    const tokenPath = join(dir, 'token');
    writeFileSync(tokenPath, 'file-token\n');
    const kc = loadUntrustedKubeconfig(kubeconfig(inlineCluster, `    token-file: ${tokenPath}`), { allow: ['localFiles'] });
    expect(kc.getCurrentUser()?.token).toBe('file-token');
  });

  const invalid: Array<[string, string, RegExp]> = [
    ['malformed YAML', 'clusters: [unclosed', /not valid YAML/],
    ['a scalar document', 'just a string', /must be a YAML mapping/],
    ['no current context', kubeconfig(inlineCluster, tokenUser).replace('current-context: ctx', ''), /no current-context/],
    [
      'a missing context',
      kubeconfig(inlineCluster, tokenUser).replace('current-context: ctx', 'current-context: nope'),
      /context "nope" not found/,
    ],
    ['a missing server', kubeconfig(`    certificate-authority-data: ${caData}`, tokenUser), /server is missing/],
    ['credentials in the URL', kubeconfig('    server: https://admin:pw@127.0.0.1', tokenUser), /must not carry credentials/],
    ['duplicate keys', kubeconfig(inlineCluster, `${tokenUser}\n    token: other`), /not valid YAML/],
    [
      'an alias bomb',
      `a: &a [x,x,x,x,x,x,x,x]\n${Array.from({ length: 40 }, (_, i) => `k${i}: [*a,*a,*a,*a]`).join('\n')}`,
      /not valid YAML/,
    ],
  ];
  test.each(invalid)('reports %s as invalid', (_name, text, message) => {
    expect(() => loadUntrustedKubeconfig(text)).toThrow(KubeconfigInvalidError);
    expect(() => loadUntrustedKubeconfig(text)).toThrow(message);
  });

  test('rejects oversized documents before parsing', () => {
    expect(() => loadUntrustedKubeconfig('x'.repeat(2048), { maxBytes: 1024 })).toThrow(/larger than 1024 bytes/);
  });

  test('refuses a certificate-authority-data that is not base64 PEM certificates that parse, naming none of it', () => {
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const bad = '-----BEGIN CERTIFICATE-----\nAAAAs3cr3t\n-----END CERTIFICATE-----\n';
    for (const [value, problem] of [
      ['not base64 at all!', /certificate-authority-data is not base64$/],
      [b64('just text, no certificate'), /certificate-authority-data holds no PEM certificate$/],
      [b64(bad), /certificate-authority-data holds a certificate that does not parse$/],
      [b64(Buffer.from(caData, 'base64').toString('utf8') + bad), /holds a certificate that does not parse$/],
    ] as const) {
      const text = kubeconfig(`    server: https://127.0.0.1:6443\n    certificate-authority-data: ${value}`, tokenUser);
      expect(() => loadUntrustedKubeconfig(text)).toThrow(KubeconfigInvalidError);
      expect(() => loadUntrustedKubeconfig(text)).toThrow(problem);
      expect(() => loadUntrustedKubeconfig(text)).not.toThrow(/s3cr3t|AAAA/);
    }
    // A bundle of two CAs is fine.
    const second = Buffer.from(caData, 'base64').toString('utf8');
    const bundle = b64(second + second);
    expect(certificateAuthorityProblem(bundle)).toBeUndefined();
    const loaded = loadUntrustedKubeconfig(
      kubeconfig(`    server: https://127.0.0.1:6443\n    certificate-authority-data: ${bundle}`, tokenUser),
    );
    expect(loaded.getCurrentCluster()?.caData).toBe(bundle);
  });
});

describe('connectionFingerprint', () => {
  test('changes with credentials or server, not with unrelated contexts', () => {
    const base = kubeconfig(inlineCluster, tokenUser);
    const withOther = kubeconfig(inlineCluster, tokenUser, 'preferences: {}\n');
    const rotated = kubeconfig(inlineCluster, '    token: rotated');
    const fp = (text: string) => connectionFingerprint(loadUntrustedKubeconfig(text));
    expect(fp(base)).toBe(fp(withOther));
    expect(fp(base)).not.toBe(fp(rotated));
    expect(fp(base)).not.toContain('s3cr3t');
  });

  test('is the same whatever the context, cluster and user entries are called', () => {
    const renamed = `apiVersion: v1
kind: Config
current-context: other
contexts:
- name: other
  context: {cluster: c2, user: u2, namespace: team-a}
clusters:
- name: c2
  cluster:
${inlineCluster}
users:
- name: u2
  user:
${tokenUser}
`;
    const fp = (text: string) => connectionFingerprint(loadUntrustedKubeconfig(text));
    expect(loadUntrustedKubeconfig(renamed).getCurrentCluster()?.name).toBe('c2');
    expect(loadUntrustedKubeconfig(renamed).getCurrentUser()?.name).toBe('u2');
    expect(fp(renamed)).toBe(fp(kubeconfig(inlineCluster, tokenUser)));
    expect(fp(renamed.replace('namespace: team-a', 'namespace: team-b'))).not.toBe(fp(renamed));
  });
});

describe('listKubeconfigContexts', () => {
  test('lists context names in document order without resolving them', () => {
    const text = `contexts:
- name: b
  context: {cluster: missing}
- name: a
  context: {cluster: c}
`;
    expect(listKubeconfigContexts(text)).toEqual(['b', 'a']);
    expect(listKubeconfigContexts('kind: Config\n')).toEqual([]);
  });

  test('reports broken documents as invalid', () => {
    expect(() => listKubeconfigContexts('contexts: [\n')).toThrow(KubeconfigInvalidError);
    expect(() => listKubeconfigContexts('contexts: 3\n')).toThrow(/contexts must be a list/);
    expect(() => listKubeconfigContexts('- just\n- a list\n')).toThrow(/must be a YAML mapping/);
  });
});

describe('parseUntrustedKubeconfig', () => {
  const twoContexts = (command: string) => `current-context: one
contexts:
- name: one
  context: {cluster: c, user: u}
- name: two
  context: {cluster: c, user: u, namespace: team-b}
clusters:
- name: c
  cluster: {server: 'https://127.0.0.1:6443', certificate-authority-data: ${caData}}
users:
- name: u
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: ${command}, args: [--stage, one]}
`;

  test('parses once for listing and loading every context, with the same answers as the text', () => {
    const text = twoContexts('/bin/true');
    const policy = { allow: ['exec' as const] };
    const parsed = parseUntrustedKubeconfig(text, policy);
    expect(listKubeconfigContexts(parsed)).toEqual(listKubeconfigContexts(text));
    for (const context of ['one', 'two']) {
      const fromParsed = loadUntrustedKubeconfig(parsed, policy, { context });
      const fromText = loadUntrustedKubeconfig(text, policy, { context });
      expect(fromParsed.exportConfig()).toBe(fromText.exportConfig());
      expect(connectionFingerprint(fromParsed)).toBe(connectionFingerprint(fromText));
    }
    // The policy is still applied at load: parsing checked nothing.
    expect(() => loadUntrustedKubeconfig(parsed, {})).toThrow(KubeconfigRejectedError);
  });

  test('configs loaded from one parsed document share nothing a client could change', () => {
    const parsed = parseUntrustedKubeconfig(twoContexts('/bin/true'));
    const policy = { allow: ['exec' as const] };
    const one = loadUntrustedKubeconfig(parsed, policy, { context: 'one' });
    const two = loadUntrustedKubeconfig(parsed, policy, { context: 'two' });
    (one.getCurrentUser()?.exec as { args: string[] }).args.push('--changed');
    expect((two.getCurrentUser()?.exec as { args: string[] }).args).toEqual(['--stage', 'one']);
    expect((loadUntrustedKubeconfig(parsed, policy).getCurrentUser()?.exec as { args: string[] }).args).toEqual(['--stage', 'one']);
  });

  test('refuses what the text forms refuse, when parsing, and shows no content when logged', () => {
    expect(() => parseUntrustedKubeconfig('contexts: [\n')).toThrow(KubeconfigInvalidError);
    expect(() => parseUntrustedKubeconfig('x'.repeat(2048), { maxBytes: 1024 })).toThrow(/larger than 1024 bytes/);
    const parsed = parseUntrustedKubeconfig(kubeconfig(inlineCluster, tokenUser));
    expect(inspect(parsed, { depth: 10, showHidden: true })).not.toContain('s3cr3t');
    expect(JSON.stringify(parsed)).not.toContain('s3cr3t');
  });
});
