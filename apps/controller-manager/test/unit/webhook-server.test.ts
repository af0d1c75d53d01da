import { silentLogger } from '@cloneset-suite/kube-runtime';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { planBundle } from '../../src/certs/bundle.ts';
import { createWebhookMetrics } from '../../src/server/webhook-metrics.ts';
import { WebhookServer } from '../../src/server/webhook-server.ts';
import { allowed } from '../../src/webhooks/admission-review.ts';
import type { AdmissionWebhook } from '../../src/webhooks/types.ts';
import { postJson } from '../support/https.ts';

const DAY = 86_400_000;

function hook(path: string, handle: AdmissionWebhook['handle']): AdmissionWebhook {
  return { name: `${path.slice(1)}.test.io`, type: 'validating', path, rules: [], failurePolicy: 'Fail', timeoutSeconds: 5, handle };
}

const review = (uid: string): unknown => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid, kind: { group: '', version: 'v1', kind: 'Thing' }, resource: { group: '', version: 'v1', resource: 'things' }, operation: 'CREATE', object: {} },
});

const bundle = (await planBundle(undefined, { hosts: ['127.0.0.1'], servingValidityMs: 30 * DAY, now: new Date() })).bundle;

describe('WebhookServer', () => {
  const registry = new Registry();
  // The server's own logger (its subsystem child), to see which requests derive a logger of their own.
  const root = silentLogger();
  const serverLogger = silentLogger();
  vi.spyOn(root, 'child').mockReturnValue(serverLogger as unknown as ReturnType<typeof root.child>);
  const requestLoggers = vi.spyOn(serverLogger, 'child');
  const server = new WebhookServer({
    host: '127.0.0.1',
    port: 0,
    requestTimeoutMs: 300,
    maxBodyBytes: 64 * 1024,
    limits: { idleTimeoutMs: 60_000, maxConnections: 64, maxRequestsInFlight: 32, conversionMaxRequestsInFlight: 2 },
    logger: root,
    metrics: createWebhookMetrics(registry),
    webhooks: [
      hook('/ok', () => Promise.resolve(allowed([{ op: 'add', path: '/x', value: 1 }]))),
      hook('/slow', (_req, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(allowed())))),
      hook('/boom', () => Promise.reject(new Error('kaput'))),
    ],
  });
  let base = '';

  beforeAll(async () => {
    expect(server.isReady()).toBe(false);
    await server.setCertificate({ cert: bundle.tlsCert, key: bundle.tlsKey });
    base = `https://127.0.0.1:${server.port()}`;
  });
  afterAll(() => server.close());

  it('is ready once it has a certificate, and answers AdmissionReviews echoing the uid', async () => {
    expect(server.isReady()).toBe(true);
    const res = await postJson(`${base}/ok`, review('abc'), bundle.caBundle);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'abc', allowed: true, patchType: 'JSONPatch' } });
  });

  it('answers 400 to what is not an AdmissionReview and 404 to unknown paths', async () => {
    expect((await postJson(`${base}/ok`, { hello: 'world' }, bundle.caBundle)).status).toBe(400);
    expect((await postJson(`${base}/nope`, review('x'), bundle.caBundle)).status).toBe(404);
  });

  it('refuses bodies over the size limit with 413', async () => {
    const big = { ...(review('big') as object), padding: 'x'.repeat(100 * 1024) };
    expect((await postJson(`${base}/ok`, big, bundle.caBundle)).status).toBe(413);
  });

  it('bounds each request: a slow handler is answered with 504 Timeout', async () => {
    const started = Date.now();
    const res = await postJson(`${base}/slow`, review('slow'), bundle.caBundle);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(res.body).toMatchObject({ response: { uid: 'slow', allowed: false, status: { code: 504, reason: 'Timeout' } } });
  });

  it('turns a handler failure into a refusal with 500, logged with the request', async () => {
    requestLoggers.mockClear();
    const res = await postJson(`${base}/boom`, review('boom'), bundle.caBundle);
    expect(res.body).toMatchObject({ response: { allowed: false, status: { code: 500, reason: 'InternalError' } } });
    expect(requestLoggers).toHaveBeenCalledWith({ webhook: 'boom.test.io', uid: 'boom', operation: 'CREATE', object: '/' });
  });

  it('derives no logger for a request that logs nothing (the pod webhooks answer thousands a second)', async () => {
    requestLoggers.mockClear();
    for (const uid of ['q1', 'q2', 'q3']) expect((await postJson(`${base}/ok`, review(uid), bundle.caBundle)).status).toBe(200);
    expect(requestLoggers).not.toHaveBeenCalled();
  });

  it('counts requests under controller-runtime metric names', async () => {
    const text = await registry.metrics();
    expect(text).toMatch(/controller_runtime_webhook_requests_total\{webhook="\/ok",code="200"\} \d/);
    expect(text).toContain('controller_runtime_webhook_latency_seconds_bucket');
    expect(text).toContain('controller_runtime_webhook_requests_in_flight');
  });

  it('serves a rotated certificate to new connections without restarting', async () => {
    const before = (await postJson(`${base}/ok`, review('a'), bundle.caBundle)).fingerprint;
    const next = (await planBundle(undefined, { hosts: ['127.0.0.1'], servingValidityMs: 30 * DAY, now: new Date() })).bundle;
    await server.setCertificate({ cert: next.tlsCert, key: next.tlsKey });
    const after = await postJson(`${base}/ok`, review('b'), next.caBundle);
    expect(after.status).toBe(200);
    expect(after.fingerprint).not.toBe(before);
    await expect(postJson(`${base}/ok`, review('c'), bundle.caBundle)).rejects.toThrow();
  });
});
