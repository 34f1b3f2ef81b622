/**
 * X.509 material for test API servers: a CA, server certificates with the SANs Go clients require, and client
 * certificates whose subject carries the Kubernetes user (CN) and groups (O). EC P-256 through WebCrypto, because it
 * works with client-node, kubectl and python and needs no openssl binary. H-real reuses these for kube-apiserver.
 */
import './reflect-metadata.js';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { CertificateError } from '../errors.js';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface KeyPairPem {
  readonly certPem: string;
  readonly keyPem: string;
}

/** A certificate authority able to sign more certificates in this process. */
export interface CertificateAuthority extends KeyPairPem {
  readonly certificate: x509.X509Certificate;
  readonly signingKey: CryptoKey;
}

/**
 * Options of {@link createCertificateAuthority}.
 */
export interface CertificateAuthorityOptions {
  commonName?: string;
  /** Validity in days (default 365). */
  validityDays?: number;
}

/**
 * Options of {@link issueServerCertificate}: the names and addresses the certificate is valid for.
 */
export interface ServerCertificateOptions {
  commonName?: string;
  /** Default: ['127.0.0.1', '::1']. */
  ipAddresses?: readonly string[];
  /** Default: ['localhost']. */
  dnsNames?: readonly string[];
  validityDays?: number;
}

/**
 * Options of {@link issueClientCertificate}: the Kubernetes user (CN) and groups (O) it authenticates as.
 */
export interface ClientCertificateOptions {
  /** The Kubernetes user name. */
  commonName: string;
  /** The Kubernetes groups. */
  organizations?: readonly string[];
  validityDays?: number;
}

/**
 * A new self-signed certificate authority (ECDSA P-256), for servers and clients of a test.
 */
export async function createCertificateAuthority(opts: CertificateAuthorityOptions = {}): Promise<CertificateAuthority> {
  try {
    const keys = await generateKeys();
    const now = Date.now();
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: randomSerial(),
      name: [{ CN: [opts.commonName ?? 'envtest-ca'] }],
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + (opts.validityDays ?? 365) * DAY_MS),
      signingAlgorithm: SIGNING_ALGORITHM,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return { certificate, signingKey: keys.privateKey, certPem: certificate.toString('pem'), keyPem: await exportKey(keys.privateKey) };
  } catch (err) {
    throw new CertificateError(`creating the certificate authority failed: ${String(err)}`, { cause: err });
  }
}

/**
 * A server certificate signed by `ca` (default: 127.0.0.1, ::1 and localhost), for webhook servers in tests.
 */
export async function issueServerCertificate(ca: CertificateAuthority, opts: ServerCertificateOptions = {}): Promise<KeyPairPem> {
  const names: x509.JsonGeneralName[] = [
    ...(opts.ipAddresses ?? ['127.0.0.1', '::1']).map((value) => ({ type: 'ip' as const, value })),
    ...(opts.dnsNames ?? ['localhost']).map((value) => ({ type: 'dns' as const, value })),
  ];
  return issue(ca, [{ CN: [opts.commonName ?? 'envtest-apiserver'] }], opts.validityDays, [
    new x509.SubjectAlternativeNameExtension(names),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
  ]);
}

/**
 * A client certificate signed by `ca`, which the in-memory server accepts as user CN in groups O.
 */
export async function issueClientCertificate(ca: CertificateAuthority, opts: ClientCertificateOptions): Promise<KeyPairPem> {
  if (!opts.commonName) throw new CertificateError('a client certificate needs a commonName (the user name)');
  const subject: x509.JsonName = [{ CN: [opts.commonName] }];
  for (const org of opts.organizations ?? []) subject.push({ O: [org] });
  return issue(ca, subject, opts.validityDays, [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])]);
}

async function issue(
  ca: CertificateAuthority,
  subject: x509.JsonName,
  validityDays: number | undefined,
  extensions: x509.Extension[],
): Promise<KeyPairPem> {
  try {
    const keys = await generateKeys();
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject,
      issuer: ca.certificate.subjectName,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + (validityDays ?? 365) * DAY_MS),
      signingAlgorithm: SIGNING_ALGORITHM,
      publicKey: keys.publicKey,
      signingKey: ca.signingKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        await x509.AuthorityKeyIdentifierExtension.create(ca.certificate),
        ...extensions,
      ],
    });
    return { certPem: cert.toString('pem'), keyPem: await exportKey(keys.privateKey) };
  } catch (err) {
    throw new CertificateError(`issuing a certificate failed: ${String(err)}`, { cause: err });
  }
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

async function exportKey(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

function randomSerial(): string {
  // Positive 16-byte serial: clear the top bit so DER does not read it as negative.
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes).toString('hex');
}
