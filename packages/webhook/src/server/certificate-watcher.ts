/**
 * The serving certificate, read from files and re-read when they change (cert-manager renewals, Secret volume
 * symlink swaps; see FileWatch). A new pair is used only once cert and key parse and match, so a rotation that writes one file before the other never serves a
 * broken identity: the old one stays until the new one is whole.
 */
import { X509Certificate, createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { Logger } from '@multicluster-runtime/core';
import { CertificateError } from '../errors.js';
import { FileWatch } from '../files/file-watch.js';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** PEM bundle of CAs whose client certificates are accepted; with it, clients must present one. */
  clientCAFile?: string | undefined;
}

export interface TlsIdentity {
  readonly options: SecureContextOptions;
  /** Fingerprint of the file contents, to notice real changes. */
  readonly digest: string;
  /** The leaf certificate's serial number and expiry, for logs. */
  readonly serial: string;
  readonly validTo: string;
}

/** Reads the files and checks they form a usable TLS identity; throws CertificateError saying why not. */
export async function loadIdentity(files: TlsFiles, minVersion: 'TLSv1.2' | 'TLSv1.3'): Promise<TlsIdentity> {
  const read = async (path: string, what: string): Promise<Buffer> => {
    try {
      return await readFile(path);
    } catch (err) {
      throw new CertificateError(`cannot read the ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  const [cert, key, ca] = await Promise.all([
    read(files.certFile, 'certificate'),
    read(files.keyFile, 'private key'),
    files.clientCAFile ? read(files.clientCAFile, 'client CA bundle') : undefined,
  ]);
  const options: SecureContextOptions = { cert, key, minVersion, ...(ca ? { ca } : {}) };
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
    createSecureContext(options);
  } catch (err) {
    throw new CertificateError(`${files.certFile} and ${files.keyFile} do not form a usable TLS identity: ${(err as Error).message}`);
  }
  const digest = createHash('sha256')
    .update(cert)
    .update('\0')
    .update(key)
    .update('\0')
    .update(ca ?? '')
    .digest('hex');
  return { options, digest, serial: leaf.serialNumber, validTo: leaf.validTo };
}

export interface CertificateWatcherOptions {
  files: TlsFiles;
  minVersion: 'TLSv1.2' | 'TLSv1.3';
  logger: Logger;
  /** Called with each new identity (not for the first one). */
  onRotate: (identity: TlsIdentity) => void;
  /** Safety-net re-read period (default 10 s). */
  recheckMs?: number;
}

/** Watches the certificate files and hands each new, valid identity to `onRotate`. */
export class CertificateWatcher {
  private readonly watch: FileWatch;
  private failures = 0;

  constructor(
    private readonly options: CertificateWatcherOptions,
    private current: TlsIdentity,
  ) {
    const { certFile, keyFile, clientCAFile } = options.files;
    this.watch = new FileWatch(
      [certFile, keyFile, ...(clientCAFile ? [clientCAFile] : [])],
      () => this.readOnce(),
      options.logger,
      options.recheckMs,
    );
  }

  start(): void {
    this.watch.start();
  }

  /** Re-reads the files now (also done on every file event). */
  reload(): void {
    this.watch.trigger();
  }

  /** Resolves once any reload in progress has finished. */
  settled(): Promise<void> {
    return this.watch.settled();
  }

  get identity(): TlsIdentity {
    return this.current;
  }

  close(): Promise<void> {
    return this.watch.close();
  }

  private async readOnce(): Promise<boolean> {
    let next: TlsIdentity;
    try {
      next = await loadIdentity(this.options.files, this.options.minVersion);
    } catch (err) {
      // Mid-rotation (one file written, not the other) or a broken write: keep serving the current identity and look
      // again shortly; say so loudly only when it persists.
      const log = this.options.logger;
      if (++this.failures === 20) log.error('the certificate files stay unusable; still serving the previous certificate', err);
      else log.debug('the certificate files are not usable yet', { error: (err as Error).message });
      return false;
    }
    this.failures = 0;
    if (next.digest === this.current.digest) return true;
    this.current = next;
    this.options.logger.info('serving a new certificate', { serial: next.serial, validTo: next.validTo });
    this.options.onRotate(next);
    return true;
  }
}
