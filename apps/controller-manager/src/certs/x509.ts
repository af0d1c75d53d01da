// Issues X.509 v3 certificates with node:crypto alone: ECDSA P-256 keys, SHA-256 signatures,
// the extensions a webhook CA and serving certificate need. Parsing is node's X509Certificate.
import { createHash, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import * as der from './der.ts';

const OID = {
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

const KEY_USAGE = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 } as const;

export interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function generateKeyPair(): KeyPair {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

export interface Issuer {
  commonName: string;
  organization?: string;
  keys: KeyPair;
}

export interface CertificateOptions {
  commonName: string;
  organization?: string;
  keys: KeyPair;
  notBefore: Date;
  notAfter: Date;
  /** Omit for a self-signed certificate. */
  issuer?: Issuer;
  isCA: boolean;
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

function name(commonName: string, organization?: string): Buffer {
  const rdns = [];
  if (organization) rdns.push(der.set(der.sequence(der.objectIdentifier(OID.organization), der.utf8String(organization))));
  rdns.push(der.set(der.sequence(der.objectIdentifier(OID.commonName), der.utf8String(commonName))));
  return der.sequence(...rdns);
}

function keyId(publicKey: KeyObject): Buffer {
  return createHash('sha1').update(publicKey.export({ type: 'spki', format: 'der' })).digest();
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return der.sequence(der.objectIdentifier(oid), ...(critical ? [der.boolean(true)] : []), der.octetString(value));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  // IPv6: expand "::" and write eight 16-bit groups.
  const [head = '', tail] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** Builds and signs the certificate; returns it as PEM. */
export function createCertificate(o: CertificateOptions): string {
  const issuer: Issuer = o.issuer ?? { commonName: o.commonName, keys: o.keys, ...(o.organization ? { organization: o.organization } : {}) };
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  serial[0]! |= 0x01; // positive, no leading zero byte
  const algorithm = der.sequence(der.objectIdentifier(OID.ecdsaWithSHA256));
  const extensions = [
    extension(OID.basicConstraints, true, der.sequence(...(o.isCA ? [der.boolean(true)] : []))),
    extension(
      OID.keyUsage,
      true,
      der.namedBits(o.isCA ? [KEY_USAGE.digitalSignature, KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign] : [KEY_USAGE.digitalSignature]),
    ),
    extension(OID.subjectKeyIdentifier, false, der.octetString(keyId(o.keys.publicKey))),
    extension(OID.authorityKeyIdentifier, false, der.sequence(der.implicit(0, keyId(issuer.keys.publicKey)))),
  ];
  if (!o.isCA) {
    extensions.push(extension(OID.extKeyUsage, false, der.sequence(der.objectIdentifier(OID.serverAuth))));
    const names = [
      ...(o.dnsNames ?? []).map((d) => der.implicit(2, Buffer.from(d, 'ascii'))),
      ...(o.ipAddresses ?? []).map((ip) => der.implicit(7, ipBytes(ip))),
    ];
    if (names.length > 0) extensions.push(extension(OID.subjectAltName, false, der.sequence(...names)));
  }
  const tbs = der.sequence(
    der.explicit(0, der.smallInteger(2)),
    der.unsignedInteger(serial),
    algorithm,
    name(issuer.commonName, issuer.organization),
    der.sequence(der.time(o.notBefore), der.time(o.notAfter)),
    name(o.commonName, o.organization),
    o.keys.publicKey.export({ type: 'spki', format: 'der' }),
    der.explicit(3, der.sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, issuer.keys.privateKey);
  const certificate = der.sequence(tbs, algorithm, der.bitStringBytes(signature));
  const b64 = certificate.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

export function privateKeyPem(keys: KeyPair): string {
  return keys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** Splits a PEM bundle into its certificates. */
export function splitPemBundle(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g)?.map((c) => (c.endsWith('\n') ? c : `${c}\n`)) ?? [];
}

/** Names a certificate must carry for the SANs used by the apiserver. */
export function subjectAltNames(hosts: readonly string[]): { dnsNames: string[]; ipAddresses: string[] } {
  const unique = [...new Set(hosts)];
  return { dnsNames: unique.filter((h) => isIP(h) === 0), ipAddresses: unique.filter((h) => isIP(h) !== 0) };
}

export { X509Certificate };
