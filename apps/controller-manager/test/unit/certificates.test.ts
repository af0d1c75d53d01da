import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nextRenewal, planBundle } from '../../src/certs/bundle.ts';
import { splitPemBundle } from '../../src/certs/x509.ts';

const DAY = 86_400_000;
const hosts = ['127.0.0.1', 'cloneset-suite-webhook.system.svc'];
const at = (ms: number): Date => new Date(Date.UTC(2030, 0, 1) + ms);

const first = await planBundle(undefined, { hosts, servingValidityMs: 30 * DAY, now: at(0) });

describe('self-managed certificate bundle', () => {

  it('issues a CA and a serving certificate for every host', () => {
    expect(first.changed).toBe(true);
    const ca = new X509Certificate(first.bundle.caCert);
    const tls = new X509Certificate(first.bundle.tlsCert);
    expect(ca.ca).toBe(true);
    expect(tls.ca).toBe(false);
    expect(tls.checkIssued(ca) && tls.verify(ca.publicKey)).toBe(true);
    expect(tls.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(tls.checkHost('cloneset-suite-webhook.system.svc')).toBe('cloneset-suite-webhook.system.svc');
    expect(splitPemBundle(first.bundle.caBundle)).toHaveLength(1);
  });

  it('marks the CA as a critical CA constraint signing certificates, the serving certificate as a TLS server leaf', () => {
    const text = (pem: string): string => execFileSync('openssl', ['x509', '-noout', '-text'], { input: pem, encoding: 'utf8' });
    const ca = text(first.bundle.caCert);
    expect(ca).toMatch(/Basic Constraints: critical\s+CA:TRUE/);
    expect(ca).toMatch(/Key Usage: critical\s+Digital Signature, Certificate Sign, CRL Sign/);
    const tls = text(first.bundle.tlsCert);
    expect(tls).toMatch(/Basic Constraints: critical\s+CA:FALSE/);
    expect(tls).toMatch(/Key Usage: critical\s+Digital Signature\n/);
    expect(tls).toMatch(/Extended Key Usage:\s+TLS Web Server Authentication/);
    const sans = /Subject Alternative Name:\s+(.*)\n/.exec(tls)?.[1]?.split(', ').sort();
    expect(sans).toEqual(['DNS:cloneset-suite-webhook.system.svc', 'IP Address:127.0.0.1']);
    expect(tls).toContain('Issuer: O = cloneset-suite, CN = cloneset-suite-webhook-ca');
  });

  it('passes openssl verification for TLS server use', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cm-certs-'));
    writeFileSync(path.join(dir, 'ca.pem'), first.bundle.caBundle);
    writeFileSync(path.join(dir, 'tls.pem'), first.bundle.tlsCert);
    const out = execFileSync('openssl', ['verify', '-attime', String(Math.floor(at(DAY).getTime() / 1000)), '-purpose', 'sslserver', '-CAfile', path.join(dir, 'ca.pem'), path.join(dir, 'tls.pem')], { encoding: 'utf8' });
    expect(out).toMatch(/OK/);
  });

  it('keeps a valid bundle as it is', async () => {
    const again = await planBundle(first.bundle, { hosts, servingValidityMs: 30 * DAY, now: at(10 * DAY) });
    expect(again.changed).toBe(false);
    expect(again.bundle).toBe(first.bundle);
    expect(nextRenewal(first.bundle).getTime()).toBeGreaterThan(at(19 * DAY).getTime());
  });

  it('renews the serving certificate with a third of its life left, keeping the CA', async () => {
    const renewed = await planBundle(first.bundle, { hosts, servingValidityMs: 30 * DAY, now: at(21 * DAY) });
    expect(renewed.changed).toBe(true);
    expect(renewed.bundle.caCert).toBe(first.bundle.caCert);
    expect(renewed.bundle.tlsCert).not.toBe(first.bundle.tlsCert);
  });

  it('renews the serving certificate when a host is added', async () => {
    const renewed = await planBundle(first.bundle, { hosts: [...hosts, 'extra.example'], servingValidityMs: 30 * DAY, now: at(DAY) });
    expect(renewed.changed).toBe(true);
    expect(new X509Certificate(renewed.bundle.tlsCert).checkHost('extra.example')).toBe('extra.example');
  });

  it('rotates the CA before it expires and keeps trusting the old one meanwhile', async () => {
    const rotated = await planBundle(first.bundle, { hosts, servingValidityMs: 30 * DAY, now: at(250 * DAY) });
    expect(rotated.changed).toBe(true);
    expect(rotated.bundle.caCert).not.toBe(first.bundle.caCert);
    const trusted = splitPemBundle(rotated.bundle.caBundle);
    expect(trusted).toHaveLength(2);
    expect(trusted[0]).toBe(rotated.bundle.caCert);
    expect(trusted[1]).toBe(first.bundle.caCert);
    // Once the old CA has expired it leaves the bundle.
    const later = await planBundle(rotated.bundle, { hosts, servingValidityMs: 30 * DAY, now: at(301 * DAY) });
    expect(splitPemBundle(later.bundle.caBundle)).toHaveLength(1);
  });

  it('replaces a corrupt bundle', async () => {
    const fixed = await planBundle({ caCert: 'garbage', caKey: 'garbage', tlsCert: 'x', tlsKey: 'y', caBundle: '' }, { hosts, servingValidityMs: 30 * DAY, now: at(0) });
    expect(fixed.changed).toBe(true);
    expect(new X509Certificate(fixed.bundle.caCert).ca).toBe(true);
  });
});
