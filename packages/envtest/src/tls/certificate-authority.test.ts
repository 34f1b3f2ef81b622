import { X509Certificate } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { createCertificateAuthority, issueClientCertificate, issueServerCertificate } from './certificate-authority.js';
import { processCredentials } from './process-credentials.js';

describe('certificate authority', () => {
  test('server certificate is signed by the CA and carries the SANs Go clients require', async () => {
    const ca = await createCertificateAuthority({ commonName: 'test-ca' });
    const server = await issueServerCertificate(ca);
    const cert = new X509Certificate(server.certPem);
    expect(cert.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(cert.subjectAltName).toContain('DNS:localhost');
    expect(server.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  });

  test('client certificate subject holds the user as CN and the groups as O', async () => {
    const ca = await createCertificateAuthority();
    const client = await issueClientCertificate(ca, { commonName: 'alice', organizations: ['team-a', 'system:masters'] });
    const subject = new X509Certificate(client.certPem).subject;
    expect(subject).toContain('CN=alice');
    expect(subject).toContain('O=team-a');
    expect(subject).toContain('O=system:masters');
  });

  test('a client certificate without a user name is refused', async () => {
    const ca = await createCertificateAuthority();
    await expect(issueClientCertificate(ca, { commonName: '' })).rejects.toThrow(/commonName/);
  });

  test('process credentials are generated once and shared', async () => {
    const [a, b] = await Promise.all([processCredentials(), processCredentials()]);
    expect(a).toBe(b);
    expect(new X509Certificate(a.admin.certPem).subject).toContain('CN=admin');
  });
});
