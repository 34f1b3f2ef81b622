/**
 * The one CA, server certificate and admin client certificate shared by every in-memory server in this process.
 * Key generation costs milliseconds per certificate, so a fleet of 100 servers must not pay it 100 times.
 */
import { createCertificateAuthority, issueClientCertificate, issueServerCertificate } from './certificate-authority.js';
import type { CertificateAuthority, KeyPairPem } from './certificate-authority.js';

export interface ProcessCredentials {
  readonly ca: CertificateAuthority;
  readonly server: KeyPairPem;
  /** CN=admin, O=system:masters, like envtest's default user. */
  readonly admin: KeyPairPem;
}

export const ADMIN_USER = 'admin';
export const ADMIN_GROUPS: readonly string[] = ['system:masters'];

let cached: Promise<ProcessCredentials> | undefined;

export function processCredentials(): Promise<ProcessCredentials> {
  cached ??= create().catch((err: unknown) => {
    cached = undefined; // let a later call try again instead of caching the failure forever
    throw err;
  });
  return cached;
}

async function create(): Promise<ProcessCredentials> {
  const ca = await createCertificateAuthority();
  const [server, admin] = await Promise.all([
    issueServerCertificate(ca),
    issueClientCertificate(ca, { commonName: ADMIN_USER, organizations: ADMIN_GROUPS }),
  ]);
  return { ca, server, admin };
}
