// Client authentication of the apiserver on the webhook port (--webhook-client-ca-file). Every
// pod that reaches the port can post to it; when the apiserver presents a client certificate
// (kube-apiserver's --admission-control-config-file, README "Security"), admission requests
// from anyone else are refused before their body is read. The TLS handshake itself accepts a
// client without a certificate: kube-apiserver calls CRD conversion webhooks with no client
// credentials at all (apiextensions-apiserver builds their client from an empty kubeconfig), so
// /convert cannot demand one and stays bounded by its own limits instead.
import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { X509Certificate, splitPemBundle } from '../certs/x509.ts';

/** The trusted CA certificates of a PEM file; throws naming the flag when there are none or one does not parse. */
export function readClientCaBundle(text: string, source: string): string {
  const certificates = splitPemBundle(text);
  if (certificates.length === 0) throw new Error(`--webhook-client-ca-file ${source}: no PEM certificate (-----BEGIN CERTIFICATE-----) in it`);
  certificates.forEach((pem, i) => {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw new Error(`--webhook-client-ca-file ${source}: certificate ${i + 1} does not parse: ${(err as Error).message}`, { cause: err });
    }
  });
  return certificates.join('');
}

/** The CA bundle of the file the flag names (read once, at start). */
export function loadClientCaFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`--webhook-client-ca-file ${file}: cannot read it: ${(err as Error).message}`, { cause: err });
  }
  return readClientCaBundle(text, file);
}

/** TLS server options: ask every client for a certificate, verified against `ca`; never refuse the handshake. */
export function clientCertificateOptions(ca: string | undefined): { requestCert: boolean; rejectUnauthorized: boolean; ca?: string } {
  return ca ? { requestCert: true, rejectUnauthorized: false, ca } : { requestCert: false, rejectUnauthorized: false };
}

/** True when the connection presented a certificate the client CA verified. */
export function presentsTrustedCertificate(socket: TLSSocket): boolean {
  return socket.authorized;
}
