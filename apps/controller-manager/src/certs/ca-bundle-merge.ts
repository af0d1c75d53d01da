// The caBundle to inject: ours, plus every still-valid CA the configuration already trusts. A
// replica acting on an older read of the Secret must never take away a CA that a replica with a
// newer read injected (its serving certificate would stop being trusted); expired CAs and
// anything that is not a CA certificate leave.
import { splitPemBundle, X509Certificate } from './x509.ts';

function validCa(pem: string, now: Date): X509Certificate | undefined {
  try {
    const c = new X509Certificate(pem);
    return c.ca && new Date(c.validTo).getTime() > now.getTime() ? c : undefined;
  } catch {
    return undefined;
  }
}

/** PEM bundle: `ours` first, then the CAs of `current` it lacks, each once, none expired. */
export function mergeCaBundles(ours: string, current: string, now: Date): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const pem of [...splitPemBundle(ours), ...splitPemBundle(current)]) {
    const c = validCa(pem, now);
    if (!c || seen.has(c.fingerprint256)) continue;
    seen.add(c.fingerprint256);
    kept.push(pem);
  }
  return kept.join('');
}
