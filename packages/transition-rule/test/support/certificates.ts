// A throwaway CA and a loopback serving certificate, made with the openssl CLI, for the HTTPS
// webhook test server (the caBundle tests need a CA the system does not trust).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestCertificates {
  caPem: string;
  certPem: string;
  keyPem: string;
  /** caPem base64-encoded, as a caBundle field holds it. */
  caBundle: string;
}

export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), 'ptr-certs-'));
  const f = (name: string): string => path.join(dir, name);
  const run = (args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '2', '-subj', '/CN=ptr-test-ca']);
    run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f('tls.key'), '-out', f('tls.csr'), '-subj', '/CN=localhost']);
    writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    run(['x509', '-req', '-in', f('tls.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('tls.crt'), '-days', '2', '-extfile', f('san.ext')]);
    const caPem = readFileSync(f('ca.crt'), 'utf8');
    return { caPem, certPem: readFileSync(f('tls.crt'), 'utf8'), keyPem: readFileSync(f('tls.key'), 'utf8'), caBundle: Buffer.from(caPem).toString('base64') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
