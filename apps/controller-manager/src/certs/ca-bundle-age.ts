// Which of two caBundles is newer: the one whose most recently issued CA was issued later. A
// rotation always issues a fresh CA, so this orders bundles without any counter of our own.
import { splitPemBundle, X509Certificate } from './x509.ts';

/** notBefore (ms) of the most recently issued CA certificate in the bundle; -Infinity when none parses. */
export function newestCaIssuedAt(pemBundle: string): number {
  let newest = -Infinity;
  for (const pem of splitPemBundle(pemBundle)) {
    try {
      const c = new X509Certificate(pem);
      if (c.ca) newest = Math.max(newest, new Date(c.validFrom).getTime());
    } catch {
      // not a certificate: ignore
    }
  }
  return newest;
}

/** True when `current` holds a CA issued after every CA of `ours`: `ours` came from an older read. */
export function isOlderCaBundle(ours: string, current: string): boolean {
  return newestCaIssuedAt(current) > newestCaIssuedAt(ours);
}
