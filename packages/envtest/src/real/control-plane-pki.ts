/**
 * Every key and certificate one real environment needs, generated fresh per environment so environments running
 * side by side never trust each other's clients: a CA signing kube-apiserver's serving certificate (127.0.0.1,
 * ::1, localhost), the admin client certificate (CN=admin, O=system:masters) and kube-apiserver's client
 * certificate towards the token webhook; plus the service-account token signing key pair (kube-apiserver refuses
 * to start without one).
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { createCertificateAuthority, issueClientCertificate, issueServerCertificate } from '../tls/certificate-authority.js';

/** PEM-encoded material; private keys are PKCS#8. */
export interface ControlPlanePki {
  readonly caPem: string;
  readonly servingCertPem: string;
  readonly servingKeyPem: string;
  readonly adminCertPem: string;
  readonly adminKeyPem: string;
  /** kube-apiserver's client certificate towards the token webhook. */
  readonly webhookClientCertPem: string;
  readonly webhookClientKeyPem: string;
  readonly serviceAccountPublicKeyPem: string;
  readonly serviceAccountPrivateKeyPem: string;
}

const generateEcKeyPair = promisify(generateKeyPair);

export async function createControlPlanePki(): Promise<ControlPlanePki> {
  const ca = await createCertificateAuthority({ commonName: 'multicluster-runtime-envtest-ca', validityDays: 7 });
  const [serving, admin, webhookClient, serviceAccount] = await Promise.all([
    issueServerCertificate(ca, { commonName: 'kube-apiserver', validityDays: 7 }),
    issueClientCertificate(ca, { commonName: 'admin', organizations: ['system:masters'], validityDays: 7 }),
    issueClientCertificate(ca, { commonName: 'kube-apiserver-token-webhook-client', validityDays: 7 }),
    generateEcKeyPair('ec', {
      namedCurve: 'P-256',
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    }),
  ]);
  return {
    caPem: ca.certPem,
    servingCertPem: serving.certPem,
    servingKeyPem: serving.keyPem,
    adminCertPem: admin.certPem,
    adminKeyPem: admin.keyPem,
    webhookClientCertPem: webhookClient.certPem,
    webhookClientKeyPem: webhookClient.keyPem,
    serviceAccountPublicKeyPem: serviceAccount.publicKey,
    serviceAccountPrivateKeyPem: serviceAccount.privateKey,
  };
}
