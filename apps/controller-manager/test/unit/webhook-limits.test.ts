// The webhook port sheds what could stall or exhaust the manager: a huge body is refused before
// it is parsed, idle connections are closed, and requests past the in-flight caps are answered
// 429, while the probe server keeps answering.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { silentLogger } from '@cloneset-suite/kube-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBundle } from '../../src/certs/bundle.ts';
import { defaultConfig } from '../../src/config/flags.ts';
import { createProbeServer } from '../../src/server/probes.ts';
import { WebhookServer, webhookServerLimits, type WebhookServerLimits } from '../../src/server/webhook-server.ts';
import { allowed } from '../../src/webhooks/admission-review.ts';
import { conversionWebhooks } from '../../src/webhooks/index.ts';
import type { AdmissionWebhook } from '../../src/webhooks/types.ts';
import { postJson } from '../support/https.ts';

const bundle = (await planBundle(undefined, { hosts: ['127.0.0.1'], servingValidityMs: 86_400_000, now: new Date() })).bundle;
const MiB = 1024 * 1024;

const review = (uid: string): unknown => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid, kind: { group: '', version: 'v1', kind: 'Thing' }, resource: { group: '', version: 'v1', resource: 'things' }, operation: 'CREATE', object: {} },
});

/** Valid JSON of about `bytes`, shaped like a ConversionReview's envelope or not, made of small numbers (the costliest shape for a parse reviver). */
function junk(bytes: number, envelope: boolean): string {
  const numbers = `[${'1,'.repeat(Math.floor(bytes / 2))}1]`;
  return envelope ? `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"apps.kruise.io/v1beta1","objects":${numbers}}}` : `{"kind":"Junk","data":${numbers}}`;
}

/** A slow admission handler: it answers when the test says so (or when the request times out). */
function heldHook(): { hook: AdmissionWebhook; releaseAll: () => void } {
  const waiting: (() => void)[] = [];
  return {
    hook: {
      name: 'held.test.io',
      type: 'validating',
      path: '/held',
      rules: [],
      failurePolicy: 'Fail',
      timeoutSeconds: 5,
      handle: () => new Promise((resolve) => waiting.push(() => resolve(allowed()))),
    },
    releaseAll: () => waiting.splice(0).forEach((w) => w()),
  };
}

async function startServer(limits: WebhookServerLimits, conversionMaxBodyBytes: number, hooks: AdmissionWebhook[] = []): Promise<{ server: WebhookServer; base: string }> {
  const server = new WebhookServer({
    host: '127.0.0.1',
    port: 0,
    webhooks: hooks,
    conversions: conversionWebhooks(),
    requestTimeoutMs: 5_000,
    maxBodyBytes: 1 * MiB,
    conversionMaxBodyBytes,
    limits,
    logger: silentLogger(),
  });
  await server.setCertificate({ cert: bundle.tlsCert, key: bundle.tlsKey });
  return { server, base: `https://127.0.0.1:${server.port()}` };
}

const run = promisify(execFile);

function tlsConnection(port: number): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca: bundle.caBundle, servername: '127.0.0.1' }, () => resolve(socket));
    socket.on('error', reject);
  });
}

const closed = (socket: TLSSocket): Promise<void> => new Promise((resolve) => socket.once('close', () => resolve()));

describe('the webhook port under a hostile client, at the default limits', () => {
  const defaults = defaultConfig();
  let webhook: { server: WebhookServer; base: string };
  const probes = createProbeServer({ healthz: { ping: () => true }, readyz: {} });
  let healthz = '';

  beforeAll(async () => {
    webhook = await startServer(webhookServerLimits(defaults), defaults.webhookConversionMaxBodyBytes);
    await probes.listen({ host: '127.0.0.1', port: 0 });
    const address = probes.server.address();
    healthz = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/healthz`;
  });
  afterAll(async () => {
    await webhook.server.close();
    await probes.close();
  });

  /** Sends `body` to /convert from another process while that process asks /healthz every 20 ms. */
  async function convertWhileProbing(body: string): Promise<{ status: number | string; ms: number; slowestHealthzMs: number }> {
    const dir = await mkdtemp(path.join(tmpdir(), 'hostile-'));
    await writeFile(path.join(dir, 'ca.pem'), bundle.caBundle);
    await writeFile(path.join(dir, 'body.json'), body);
    const client = fileURLToPath(new URL('../support/hostile-client.ts', import.meta.url));
    const { stdout } = await run(process.execPath, [client, `${webhook.base}/convert`, healthz, path.join(dir, 'ca.pem'), path.join(dir, 'body.json')], { timeout: 120_000 });
    await rm(dir, { recursive: true, force: true });
    return JSON.parse(stdout) as { status: number | string; ms: number; slowestHealthzMs: number };
  }

  it('refuses 16 MiB of junk shaped as a ConversionReview at once (413), /healthz answering throughout', async () => {
    const outcome = await convertWhileProbing(junk(16 * MiB, true));
    expect(outcome.status).toBe(413);
    // Without the limits the answer took 32 s and /healthz waited as long.
    expect(outcome.ms).toBeLessThan(1_000);
    expect(outcome.slowestHealthzMs).toBeLessThan(1_000);
  });

  it('refuses junk under the body limit that is no ConversionReview (400) without a costly parse', async () => {
    const outcome = await convertWhileProbing(junk(4 * MiB, false));
    expect(outcome.status).toBe(400);
    // 4.3 s with a reviver parse.
    expect(outcome.ms).toBeLessThan(1_000);
    expect(outcome.slowestHealthzMs).toBeLessThan(1_000);
  });

  it('refuses bytes that are not JSON at all (400) as quickly', async () => {
    const outcome = await convertWhileProbing('\u0000garbage'.repeat(400_000));
    expect(outcome.status).toBe(400);
    expect(outcome.ms).toBeLessThan(1_000);
  });
});

describe('connections and requests in flight', () => {
  const held = heldHook();
  let webhook: { server: WebhookServer; base: string };

  beforeAll(async () => {
    webhook = await startServer({ idleTimeoutMs: 300, maxConnections: 64, maxRequestsInFlight: 2, conversionMaxRequestsInFlight: 1 }, 1 * MiB, [held.hook]);
  });
  afterAll(async () => {
    held.releaseAll();
    await webhook.server.close();
  });

  it('closes a connection that sends nothing once the idle timeout has passed', async () => {
    const socket = await tlsConnection(webhook.server.port() ?? 0);
    const started = performance.now();
    await closed(socket);
    const ms = performance.now() - started;
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(2_000);
  });

  it('answers 429 past the requests in flight, and serves again once they are done', async () => {
    const first = [postJson(`${webhook.base}/held`, review('a'), bundle.caBundle), postJson(`${webhook.base}/held`, review('b'), bundle.caBundle)];
    await new Promise((r) => setTimeout(r, 100));
    const refused = await postJson(`${webhook.base}/held`, review('c'), bundle.caBundle);
    expect(refused.status).toBe(429);
    held.releaseAll();
    expect((await Promise.all(first)).map((r) => r.status)).toEqual([200, 200]);
    const again = postJson(`${webhook.base}/held`, review('d'), bundle.caBundle);
    await new Promise((r) => setTimeout(r, 50));
    held.releaseAll();
    expect((await again).status).toBe(200);
  });

  it('has a smaller cap for /convert: a second ConversionReview while one is being received is answered 429', async () => {
    const socket = await tlsConnection(webhook.server.port() ?? 0);
    // A review whose body is still coming holds its slot.
    socket.write('POST /convert HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"apiVersion":');
    await new Promise((r) => setTimeout(r, 100));
    const second = await postJson(`${webhook.base}/convert`, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u', desiredAPIVersion: 'apps.kruise.io/v1beta1', objects: [] } }, bundle.caBundle);
    expect(second.status).toBe(429);
    socket.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const third = await postJson(`${webhook.base}/convert`, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u', desiredAPIVersion: 'apps.kruise.io/v1beta1', objects: [] } }, bundle.caBundle);
    expect(third.status).toBe(200);
  });
});

describe('the connection cap', () => {
  it('closes connections past it at once, and takes new ones once others have gone', async () => {
    const { server } = await startServer({ idleTimeoutMs: 60_000, maxConnections: 3, maxRequestsInFlight: 2, conversionMaxRequestsInFlight: 1 }, 1 * MiB);
    const port = server.port() ?? 0;
    const open = await Promise.all([1, 2, 3].map(() => tlsConnection(port)));
    await expect(tlsConnection(port)).rejects.toMatchObject({ code: 'ECONNRESET' });
    open.forEach((s) => s.destroy());
    await new Promise((r) => setTimeout(r, 100));
    const later = await tlsConnection(port);
    later.destroy();
    await server.close();
  });
});
