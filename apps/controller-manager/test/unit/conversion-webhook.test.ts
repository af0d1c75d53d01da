// The CloneSet conversion webhook: ConversionReview v1 in and out over TLS, every object
// converted or a Failure naming the one that could not be, a bounded body.
import { silentLogger } from '@cloneset-suite/kube-runtime';
import { cloneSetToV1beta1 } from '@cloneset-suite/api-types';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBundle } from '../../src/certs/bundle.ts';
import { createWebhookMetrics } from '../../src/server/webhook-metrics.ts';
import { WebhookServer } from '../../src/server/webhook-server.ts';
import { BadConversionReview, parseConversionReview } from '../../src/webhooks/conversion-review.ts';
import { conversionWebhooks } from '../../src/webhooks/index.ts';
import { postJson } from '../support/https.ts';

const cloneSet = (name: string): Record<string, unknown> => ({
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name, namespace: 'ns' },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } } }, updateStrategy: { type: 'InPlaceIfPossible', partition: 1 } },
});

const review = (uid: string, desiredAPIVersion: string, objects: unknown[]): unknown => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'ConversionReview',
  request: { uid, desiredAPIVersion, objects },
});

describe('parseConversionReview', () => {
  it.each<[string, unknown, RegExp]>([
    ['not an object', [], /not a JSON object/],
    ['another kind', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, /expected apiVersion apiextensions.k8s.io\/v1, kind ConversionReview/],
    ['no request', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' }, /request is missing/],
    ['no uid', review('', 'apps.kruise.io/v1beta1', []), /uid is missing/],
    ['no desired version', review('u', '', []), /desiredAPIVersion is missing/],
    ['objects not a list', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u', desiredAPIVersion: 'v', objects: {} } }, /objects is not a list/],
  ])('refuses %s', (_name, body, message) => {
    expect(() => parseConversionReview(body)).toThrow(BadConversionReview);
    expect(() => parseConversionReview(body)).toThrow(message);
  });
});

const bundle = (await planBundle(undefined, { hosts: ['127.0.0.1'], servingValidityMs: 86_400_000, now: new Date() })).bundle;

describe('the conversion route of the webhook server', () => {
  const registry = new Registry();
  const server = new WebhookServer({
    host: '127.0.0.1',
    port: 0,
    webhooks: [],
    conversions: conversionWebhooks(),
    requestTimeoutMs: 1_000,
    maxBodyBytes: 1024,
    conversionMaxBodyBytes: 64 * 1024,
    limits: { idleTimeoutMs: 60_000, maxConnections: 64, maxRequestsInFlight: 32, conversionMaxRequestsInFlight: 2 },
    logger: silentLogger(),
    metrics: createWebhookMetrics(registry),
  });
  let url = '';

  beforeAll(async () => {
    await server.setCertificate({ cert: bundle.tlsCert, key: bundle.tlsKey });
    url = `https://127.0.0.1:${server.port()}/convert`;
  });
  afterAll(() => server.close());

  it('converts every object to the desired version and echoes the uid', async () => {
    const objects = [cloneSet('a'), cloneSet('b')];
    const res = await postJson(url, review('u1', 'apps.kruise.io/v1beta1', objects), bundle.caBundle);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: { uid: 'u1', result: { status: 'Success' }, convertedObjects: objects.map(cloneSetToV1beta1) },
    });
  });

  it('answers a Failure naming the object it cannot convert, and converts none', async () => {
    const res = await postJson(url, review('u2', 'apps.kruise.io/v1beta1', [cloneSet('a'), { ...cloneSet('b'), kind: 'Deployment' }]), bundle.caBundle);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ response: { uid: 'u2', convertedObjects: [], result: { status: 'Failure', message: 'cannot convert ns/b: kind is "Deployment", not "CloneSet"' } } });
    const unknown = await postJson(url, review('u3', 'apps.kruise.io/v2', [cloneSet('a')]), bundle.caBundle);
    expect(unknown.body).toMatchObject({ response: { result: { status: 'Failure', message: expect.stringContaining('apps.kruise.io/v2') } } });
  });

  it('answers 400 to what is not a ConversionReview, or not JSON', async () => {
    expect((await postJson(url, { hello: 'world' }, bundle.caBundle)).status).toBe(400);
    expect((await postJson(url, undefined, bundle.caBundle, '{"apiVersion":')).status).toBe(400);
  });

  it('gives back every number as it was sent, an int64 beyond 2^53 included', async () => {
    const big = '9223372036854775807';
    const text = JSON.stringify(review('u4', 'apps.kruise.io/v1beta1', [cloneSet('n')])).replace('"updateStrategy":', `"minReadySeconds":1.5e0,"x":{"runAsUser":${big},"f":-0},"updateStrategy":`);
    const res = await postJson(url, undefined, bundle.caBundle, text);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`"x":{"runAsUser":${big},"f":-0}`);
    expect(res.text).toContain('"minReadySeconds":1.5e0');
  });

  it('takes a body above the admission limit up to its own, and refuses a larger one with 413', async () => {
    const many = Array.from({ length: 20 }, (_, i) => cloneSet(`cs-${i}`));
    expect(JSON.stringify(many).length).toBeGreaterThan(1024);
    expect((await postJson(url, review('big', 'apps.kruise.io/v1beta1', many), bundle.caBundle)).status).toBe(200);
    const huge = [{ ...cloneSet('h'), padding: 'x'.repeat(70 * 1024) }];
    expect((await postJson(url, review('huge', 'apps.kruise.io/v1beta1', huge), bundle.caBundle)).status).toBe(413);
  });

  it('is counted under the webhook metrics with its path', async () => {
    expect(await registry.metrics()).toMatch(/controller_runtime_webhook_requests_total\{webhook="\/convert",code="200"\} \d/);
  });
});
