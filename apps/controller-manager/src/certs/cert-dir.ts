// Certificates from a directory (cert-manager, a mounted Secret): tls.crt and tls.key, read at
// start and again whenever they change (the kubelet swaps a symlink, so the directory is both
// watched and polled).
import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@cloneset-suite/kube-runtime';
import type { ServingCertificate } from './serving-certificate.ts';
import { abortableSleep } from './sleep.ts';

export interface CertDirOptions {
  dir: string;
  logger: Logger;
  onCertificate: (c: ServingCertificate) => Promise<void>;
  pollMs?: number;
}

export async function readCertDir(dir: string): Promise<ServingCertificate> {
  const [cert, key] = await Promise.all([readFile(path.join(dir, 'tls.crt'), 'utf8'), readFile(path.join(dir, 'tls.key'), 'utf8')]);
  return { cert, key };
}

export async function runCertDir(o: CertDirOptions, signal: AbortSignal): Promise<void> {
  const logger = o.logger.child({ subsystem: 'webhook-certificates', certDir: o.dir });
  let last = '';
  let wake: (() => void) | undefined;
  let watcher: ReturnType<typeof watch> | undefined;
  try {
    watcher = watch(o.dir, { persistent: false }, () => wake?.());
    watcher.on('error', () => undefined);
  } catch {
    logger.debug('cannot watch the certificate directory; polling only');
  }
  try {
    while (!signal.aborted) {
      try {
        const c = await readCertDir(o.dir);
        const fingerprint = `${c.cert}\n${c.key}`;
        if (fingerprint !== last) {
          await o.onCertificate(c);
          if (last) logger.info('certificate files changed; reloaded');
          last = fingerprint;
        }
      } catch (err) {
        logger.warn({ err }, 'cannot load tls.crt/tls.key yet');
      }
      const ctl = new AbortController();
      const stop = (): void => ctl.abort();
      signal.addEventListener('abort', stop, { once: true });
      wake = stop;
      await abortableSleep(o.pollMs ?? 10_000, ctl.signal);
      signal.removeEventListener('abort', stop);
    }
  } finally {
    watcher?.close();
  }
}
