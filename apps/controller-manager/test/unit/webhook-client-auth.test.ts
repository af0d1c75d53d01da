// --webhook-client-ca-file on a real TLS server: with it, admission requests are answered only
// for a client certificate the CA verifies (401 before the body is read otherwise), also after
// the serving certificate is swapped; ConversionReviews are answered without one, as
// kube-apiserver presents none to conversion webhooks. Without it no certificate is asked for.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '@cloneset-suite/kube-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBundle } from '../../src/certs/bundle.ts';
import { issueCertificate, type IssuedCertificate } from '../../src/certs/x509.ts';
import { loadConfig } from '../../src/config/load.ts';
import { loadClientCaFile } from '../../src/server/client-authentication.ts';
import { WebhookServer } from '../../src/server/webhook-server.ts';
import { allowed } from '../../src/webhooks/admission-review.ts';
import { conversionWebhooks } from '../../src/webhooks/index.ts';

const DAY = 86_400_000;
const now = new Date();
const serving = (await planBundle(undefined, { hosts: ['127.0.0.1'], servingValidityMs: 30 * DAY, now })).bundle;
const renewed = (await planBundle(undefined, { hosts: ['127.0.0.1'], servingValidityMs: 30 * DAY, now })).bundle;
const validity = { notBefore: new Date(now.getTime() - 60_000), notAfter: new Date(now.getTime() + DAY) };

async function clientCa(name: string): Promise<{ ca: IssuedCertificate; client: IssuedCertificate }> {
  const ca = await issueCertificate({ commonName: `${name}-ca`, isCA: true, ...validity });
  const client = await issueCertificate({ commonName: name, isCA: false, issuer: ca, extendedKeyUsage: 'clientAuth', ...validity });
  return { ca, client };
}
const apiserver = await clientCa('kube-apiserver');
const stranger = await clientCa('stranger');

const review = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid: 'u1', kind: { group: '', version: 'v1', kind: 'Thing' }, resource: { group: '', version: 'v1', resource: 'things' }, operation: 'CREATE', object: {} },
});
const conversionReview = JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'c1', desiredAPIVersion: 'apps.kruise.io/v1alpha1', objects: [] } });

/** POSTs over TLS trusting both serving CAs, with the client certificate given (if any); resolves with the status. */
function post(url: string, body: string, client?: IssuedCertificate): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca: [serving.caBundle, renewed.caBundle], agent: false, headers: { 'content-type': 'application/json' }, ...(client ? { cert: client.cert, key: client.key } : {}) }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function startServer(clientCaPem?: string): Promise<{ server: WebhookServer; base: string }> {
  const server = new WebhookServer({
    host: '127.0.0.1',
    port: 0,
    webhooks: [{ name: 'ok.test.io', type: 'validating', path: '/ok', rules: [], failurePolicy: 'Fail', timeoutSeconds: 5, handle: () => Promise.resolve(allowed()) }],
    conversions: conversionWebhooks(),
    requestTimeoutMs: 5_000,
    maxBodyBytes: 1024 * 1024,
    limits: { idleTimeoutMs: 60_000, maxConnections: 64, maxRequestsInFlight: 32, conversionMaxRequestsInFlight: 2 },
    clientCa: clientCaPem,
    logger: silentLogger(),
  });
  await server.setCertificate({ cert: serving.tlsCert, key: serving.tlsKey });
  return { server, base: `https://127.0.0.1:${server.port()}` };
}

describe('webhook client authentication (--webhook-client-ca-file)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'client-ca-'));
  let guarded: { server: WebhookServer; base: string };
  let open: { server: WebhookServer; base: string };

  beforeAll(async () => {
    const file = path.join(dir, 'client-ca.pem');
    writeFileSync(file, apiserver.ca.cert);
    guarded = await startServer(loadClientCaFile(file));
    open = await startServer();
  });
  afterAll(async () => {
    await guarded.server.close();
    await open.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers admission only for a client certificate the CA verifies: 401 without one or with another CA\'s', async () => {
    expect(await post(`${guarded.base}/ok`, review)).toBe(401);
    expect(await post(`${guarded.base}/ok`, review, stranger.client)).toBe(401);
    expect(await post(`${guarded.base}/ok`, review, apiserver.client)).toBe(200);
  });

  it('keeps asking after the serving certificate is swapped (the new TLS context carries the client CA)', async () => {
    await guarded.server.setCertificate({ cert: renewed.tlsCert, key: renewed.tlsKey });
    expect(await post(`${guarded.base}/ok`, review)).toBe(401);
    expect(await post(`${guarded.base}/ok`, review, apiserver.client)).toBe(200);
  });

  it('answers ConversionReviews without a client certificate (kube-apiserver sends none to conversion webhooks)', async () => {
    expect(await post(`${guarded.base}/convert`, conversionReview)).toBe(200);
  });

  it('without the flag asks for no certificate: admission is answered to any client', async () => {
    expect(await post(`${open.base}/ok`, review)).toBe(200);
    expect(await post(`${open.base}/ok`, review, stranger.client)).toBe(200);
  });

  it('refuses a CA file that is missing, holds no certificate or a broken one, naming the flag', () => {
    expect(() => loadClientCaFile(path.join(dir, 'absent.pem'))).toThrow(/--webhook-client-ca-file .*absent\.pem: cannot read it/);
    writeFileSync(path.join(dir, 'empty.pem'), 'not a certificate\n');
    expect(() => loadClientCaFile(path.join(dir, 'empty.pem'))).toThrow(/--webhook-client-ca-file .*empty\.pem: no PEM certificate/);
    writeFileSync(path.join(dir, 'broken.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expect(() => loadClientCaFile(path.join(dir, 'broken.pem'))).toThrow(/--webhook-client-ca-file .*broken\.pem: certificate 1 does not parse/);
  });

  it('is off by default and set by its flag', () => {
    const load = (argv: string[]) => {
      const r = loadConfig({ argv, env: {}, knownControllers: [], inClusterNamespace: () => undefined });
      if (r.kind !== 'config') throw new Error('help?');
      return r.config.webhookClientCaFile;
    };
    expect(load([])).toBeUndefined();
    expect(load(['--webhook-client-ca-file=/etc/ca.pem'])).toBe('/etc/ca.pem');
  });
});
