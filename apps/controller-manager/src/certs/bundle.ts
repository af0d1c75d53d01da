// What the self-managed certificates should be, given what is stored: keep them while valid,
// renew the serving certificate when a third of its life remains or its names changed, renew the
// CA the same way and keep trusting the old CA (caBundle) until it expires.
import { issueCertificate, splitPemBundle, X509Certificate, type IssuedCertificate } from './x509.ts';
import { createPrivateKey } from 'node:crypto';
import { isIP } from 'node:net';

export interface CertBundle {
  caCert: string;
  caKey: string;
  tlsCert: string;
  tlsKey: string;
  /** Every CA the apiserver should trust (the current one first), PEM. */
  caBundle: string;
}

export interface BundleOptions {
  /** Names the serving certificate must carry (DNS names or IPs). */
  hosts: readonly string[];
  servingValidityMs: number;
  /** The CA lives this many times longer than a serving certificate. */
  caValidityFactor?: number;
  now: Date;
}

const CA_NAME = 'cloneset-suite-webhook-ca';
const ORGANIZATION = 'cloneset-suite';
/** Back-date notBefore a little so a skewed apiserver clock still accepts a fresh certificate. */
const BACKDATE_MS = 5 * 60_000;

function parse(pem: string): X509Certificate | undefined {
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

/** True when less than a third of the certificate's lifetime is left (or it is already expired). */
export function needsRenewal(cert: X509Certificate, now: Date): boolean {
  const from = new Date(cert.validFrom).getTime();
  const to = new Date(cert.validTo).getTime();
  return now.getTime() >= to - (to - from) / 3;
}

function covers(cert: X509Certificate, hosts: readonly string[]): boolean {
  return hosts.every((h) => (isIP(h) === 0 ? cert.checkHost(h) !== undefined : cert.checkIP(h) !== undefined));
}

function keyMatches(certPem: string, keyPem: string): boolean {
  try {
    const cert = new X509Certificate(certPem);
    return cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}

function issueCA(o: BundleOptions): Promise<IssuedCertificate> {
  const validity = o.servingValidityMs * (o.caValidityFactor ?? 10);
  return issueCertificate({
    commonName: CA_NAME,
    organization: ORGANIZATION,
    notBefore: new Date(o.now.getTime() - BACKDATE_MS),
    notAfter: new Date(o.now.getTime() + validity),
    isCA: true,
  });
}

function issueServing(ca: IssuedCertificate, o: BundleOptions): Promise<IssuedCertificate> {
  return issueCertificate({
    commonName: o.hosts[0] ?? 'cloneset-suite-webhook',
    notBefore: new Date(o.now.getTime() - BACKDATE_MS),
    notAfter: new Date(o.now.getTime() + o.servingValidityMs),
    isCA: false,
    issuer: ca,
    hosts: o.hosts,
  });
}

/** The bundle to store: `existing` itself when it is still good (changed: false). */
export async function planBundle(
  existing: Partial<CertBundle> | undefined,
  o: BundleOptions,
): Promise<{ bundle: CertBundle; changed: boolean; reason: string }> {
  const ca = existing?.caCert ? parse(existing.caCert) : undefined;
  const caUsable = ca !== undefined && ca.ca && existing?.caKey !== undefined && keyMatches(existing.caCert ?? '', existing.caKey) && !needsRenewal(ca, o.now);
  let caPair: IssuedCertificate;
  let reason = '';
  let trusted: string[];
  if (caUsable) {
    caPair = { cert: existing.caCert ?? '', key: existing.caKey ?? '' };
    trusted = [caPair.cert, ...splitPemBundle(existing.caBundle ?? '')];
  } else {
    reason = ca ? 'the CA is due for renewal' : 'no usable CA';
    caPair = await issueCA(o);
    trusted = [caPair.cert, ...(existing?.caCert ? [existing.caCert] : []), ...splitPemBundle(existing?.caBundle ?? '')];
  }
  // Keep each still-valid CA once, the current one first.
  const seen = new Set<string>();
  const caBundle = trusted
    .filter((pem) => {
      const c = parse(pem);
      if (!c || !c.ca || new Date(c.validTo).getTime() <= o.now.getTime() || seen.has(c.fingerprint256)) return false;
      seen.add(c.fingerprint256);
      return true;
    })
    .join('');

  const tls = existing?.tlsCert ? parse(existing.tlsCert) : undefined;
  const caCert = parse(caPair.cert);
  const tlsUsable =
    caUsable &&
    tls !== undefined &&
    caCert !== undefined &&
    existing?.tlsKey !== undefined &&
    tls.checkIssued(caCert) &&
    tls.verify(caCert.publicKey) &&
    keyMatches(existing.tlsCert ?? '', existing.tlsKey) &&
    !needsRenewal(tls, o.now) &&
    covers(tls, o.hosts);
  if (tlsUsable && caBundle === (existing.caBundle ?? '')) {
    return { bundle: existing as CertBundle, changed: false, reason: 'valid' };
  }
  const serving = tlsUsable ? { cert: existing.tlsCert ?? '', key: existing.tlsKey ?? '' } : await issueServing(caPair, o);
  if (!reason) reason = tlsUsable ? 'the trusted CA set changed' : 'the serving certificate is missing, due for renewal or lacks a name';
  return {
    bundle: { caCert: caPair.cert, caKey: caPair.key, tlsCert: serving.cert, tlsKey: serving.key, caBundle },
    changed: true,
    reason,
  };
}

/** When the bundle next needs a look: the earlier renewal point of the CA and serving certificate. */
export function nextRenewal(bundle: CertBundle): Date {
  const points = [bundle.caCert, bundle.tlsCert].map((pem) => {
    const c = new X509Certificate(pem);
    const from = new Date(c.validFrom).getTime();
    const to = new Date(c.validTo).getTime();
    return to - (to - from) / 3;
  });
  return new Date(Math.min(...points));
}
