import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServerCertificate,
  type KeyPairPem,
} from '../tls/certificate-authority.js';
import { TokenWebhook } from './token-webhook.js';

describe('TokenWebhook', () => {
  let webhook: TokenWebhook;
  let caPem: string;
  let client: KeyPairPem;
  let stranger: KeyPairPem;

  beforeAll(async () => {
    const ca = await createCertificateAuthority();
    const otherCa = await createCertificateAuthority();
    const server = await issueServerCertificate(ca);
    client = await issueClientCertificate(ca, { commonName: 'kube-apiserver' });
    stranger = await issueClientCertificate(otherCa, { commonName: 'kube-apiserver' });
    caPem = ca.certPem;
    webhook = await TokenWebhook.start({ caPem, certPem: server.certPem, keyPem: server.keyPem });
  });
  afterAll(async () => {
    await webhook.close();
  });

  function review(token: string, cert?: KeyPairPem, audiences?: string[]): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${webhook.url}?timeout=30s`,
        { method: 'POST', agent: false, ca: caPem, cert: cert?.certPem, key: cert?.keyPem },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences } }));
    });
  }

  it('answers TokenReviews for added tokens with the user, uid and groups', async () => {
    webhook.addToken('t-1', { username: 'alice', groups: ['dev', 'ops'] });
    const answer = await review('t-1', client, ['https://127.0.0.1:6443']);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      status: {
        authenticated: true,
        user: { username: 'alice', uid: 'alice', groups: ['dev', 'ops'] },
        audiences: ['https://127.0.0.1:6443'],
      },
    });
  });

  it('says unauthenticated for unknown tokens', async () => {
    expect((await review('nope', client)).body.status).toEqual({ authenticated: false });
  });

  it('refuses callers without a certificate from its CA', async () => {
    await expect(review('t-1')).rejects.toThrow();
    await expect(review('t-1', stranger)).rejects.toThrow();
  });

  it('rejects empty tokens and user names', () => {
    expect(() => webhook.addToken('', 'x')).toThrow(/non-empty string without whitespace/);
    expect(() => webhook.addToken('t', '')).toThrow(/user name is empty/);
  });

  it('names itself in a kubeconfig for kube-apiserver, with its CA and the client certificate', () => {
    const kc = webhook.kubeconfig(client);
    expect(kc).toContain(`server: ${webhook.url}`);
    expect(kc).toContain(`certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`);
    expect(kc).toContain(`client-certificate-data: ${Buffer.from(client.certPem).toString('base64')}`);
  });
});
