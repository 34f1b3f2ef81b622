/**
 * The CA bundle members must trust to call the webhook server: PEM text given once, or a PEM file re-read when it
 * changes (see FileWatch) so a CA rotation reaches every member's configuration.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from '@multicluster-runtime/core';
import { CertificateError } from '../errors.js';
import { FileWatch } from '../files/file-watch.js';

/** Checks that `pem` holds at least one certificate; returns it unchanged. */
export function checkCaBundle(pem: string, where: string): string {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new CertificateError(`${where} holds no PEM certificate`);
  try {
    for (const b of blocks) new X509Certificate(b);
  } catch (err) {
    throw new CertificateError(`${where} holds an unreadable certificate: ${(err as Error).message}`);
  }
  return pem;
}

export async function readCaFile(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new CertificateError(`cannot read the CA bundle ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return checkCaBundle(text, path);
}

/** Watches a CA file; calls `onChange` with each new, readable bundle. */
export class CaFileWatcher {
  private readonly watch: FileWatch;

  constructor(
    private readonly path: string,
    private current: string,
    log: Logger,
    private readonly onChange: (pem: string) => void,
  ) {
    this.watch = new FileWatch(
      [path],
      async () => {
        try {
          const pem = await readCaFile(this.path);
          if (pem !== this.current) {
            this.current = pem;
            this.onChange(pem);
          }
          return true;
        } catch (err) {
          log.debug('the CA bundle is not readable yet', { path: this.path, error: (err as Error).message });
          return false;
        }
      },
      log,
    );
  }

  start(): void {
    this.watch.start();
  }

  check(): void {
    this.watch.trigger();
  }

  settled(): Promise<void> {
    return this.watch.settled();
  }

  close(): Promise<void> {
    return this.watch.close();
  }
}
