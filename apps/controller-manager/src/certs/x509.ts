// Issues the webhook CA and serving certificates with @peculiar/x509 (WebCrypto): ECDSA P-256
// keys, SHA-256 signatures, the extensions a webhook CA and serving certificate need. Encoding
// certificates is left to a maintained library; parsing is node's X509Certificate.
import 'reflect-metadata'; // @peculiar/x509's dependency injection (tsyringe) needs it loaded first
import * as x509 from '@peculiar/x509';
import { randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';

const crypto = webcrypto;
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** A certificate and its private key, both PEM. */
export interface IssuedCertificate {
  cert: string;
  key: string;
}

export interface CertificateOptions {
  commonName: string;
  organization?: string;
  notBefore: Date;
  notAfter: Date;
  isCA: boolean;
  /** DNS names and IPs of a serving certificate. */
  hosts?: readonly string[];
  /** The signing CA; omit for a self-signed certificate. */
  issuer?: IssuedCertificate;
  /** What a leaf certificate is for: serving (the default) or authenticating a TLS client. */
  extendedKeyUsage?: 'serverAuth' | 'clientAuth';
}

function distinguishedName(commonName: string, organization?: string): x509.JsonName {
  return [...(organization ? [{ O: [organization] }] : []), { CN: [commonName] }];
}

/** 16 random bytes as a positive DER integer without a leading zero byte. */
function serialNumber(): string {
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  return serial.toString('hex');
}

function pem(label: string, der: ArrayBuffer): string {
  return `${x509.PemConverter.encode(der, label)}\n`;
}

async function importSigningKey(keyPem: string): Promise<webcrypto.CryptoKey> {
  return crypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(keyPem), ALGORITHM, false, ['sign']);
}

/** Generates a key pair and issues a certificate for it; both returned as PEM. */
export async function issueCertificate(o: CertificateOptions): Promise<IssuedCertificate> {
  const keys = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const issuerCert = o.issuer ? new x509.X509Certificate(o.issuer.cert) : undefined;
  const signingKey = o.issuer ? await importSigningKey(o.issuer.key) : keys.privateKey;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(o.isCA, undefined, true),
    new x509.KeyUsagesExtension(
      o.isCA ? x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign : x509.KeyUsageFlags.digitalSignature,
      true,
    ),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
    await x509.AuthorityKeyIdentifierExtension.create(issuerCert ? issuerCert.publicKey : keys.publicKey, false, crypto),
  ];
  if (!o.isCA) {
    extensions.push(new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage[o.extendedKeyUsage ?? 'serverAuth']]));
    const names = [...new Set(o.hosts ?? [])].map((h) => ({ type: isIP(h) === 0 ? ('dns' as const) : ('ip' as const), value: h }));
    if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  }
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serialNumber(),
      subject: distinguishedName(o.commonName, o.organization),
      issuer: issuerCert ? issuerCert.subjectName.toJSON() : distinguishedName(o.commonName, o.organization),
      notBefore: o.notBefore,
      notAfter: o.notAfter,
      publicKey: keys.publicKey,
      signingKey,
      signingAlgorithm: ALGORITHM,
      extensions,
    },
    crypto,
  );
  return { cert: cert.toString('pem') + '\n', key: pem('PRIVATE KEY', await crypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}

/** Splits a PEM bundle into its certificates. */
export function splitPemBundle(pemText: string): string[] {
  return pemText.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g)?.map((c) => (c.endsWith('\n') ? c : `${c}\n`)) ?? [];
}

export { X509Certificate };
