// The webhook HTTP client against a real loopback server (HTTP and HTTPS): every failure mode
// becomes a WebhookCallError naming its cause, and the bounds (timeout, 1 MiB, concurrency,
// allow-list, caBundle as the only roots) hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookCallError, WebhookClient } from '../../src/http/webhook-client.ts';
import { makeCertificates, type TestCertificates } from '../support/certificates.ts';
import { TestWebhookServer } from '../support/webhook-server.ts';

let certs: TestCertificates;
let http: TestWebhookServer;
let https: TestWebhookServer;

beforeAll(async () => {
  certs = makeCertificates();
  http = await new TestWebhookServer().listen();
  https = await new TestWebhookServer().listen(certs);
});
afterAll(async () => {
  await http.close();
  await https.close();
});

const body = { traceId: 't', stage: 'PreCheck', ruleName: 'r', resources: [{ apiVersion: 'v1', kind: 'Pod', name: 'p1' }] };

describe('WebhookClient', () => {
  it('POSTs JSON and returns the parsed answer', async () => {
    const client = new WebhookClient();
    await expect(client.post(http.url('/ok'), undefined, body)).resolves.toEqual({ success: true, message: 'ok' });
    expect(http.callsTo('/ok').at(-1)?.body).toEqual(body);
    await client.close();
  });

  it.each([
    ['/500', /HTTP 500: internal error/],
    ['/garbage', /response is not JSON/],
    ['/huge', /response body exceeds 1048576 bytes/],
    ['/missing', /HTTP 404/],
  ])('%s is an error naming the cause', async (path, message) => {
    const client = new WebhookClient();
    const err = await client.post(http.url(path), undefined, body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookCallError);
    expect((err as Error).message).toMatch(message);
    await client.close();
  });

  it('a hanging server times out with the configured timeout', async () => {
    const client = new WebhookClient({ timeoutMs: 300 });
    const started = Date.now();
    await expect(client.post(http.url('/hang'), undefined, body)).rejects.toThrow(/timed out after 0.3s/);
    expect(Date.now() - started).toBeLessThan(5_000);
    await client.close();
  });

  it('a dead endpoint is a transport error, not a crash', async () => {
    const client = new WebhookClient({ timeoutMs: 2_000 });
    await expect(client.post('http://127.0.0.1:1/dead', undefined, body)).rejects.toThrow(/ECONNREFUSED/);
    await client.close();
  });

  it('trusts the caBundle as roots for https, and refuses a server it does not vouch for', async () => {
    const client = new WebhookClient();
    await expect(client.post(https.url('/ok'), certs.caBundle, body)).resolves.toMatchObject({ success: true });
    // Without the bundle (or "Cg==", which means none) the test CA is not trusted.
    await expect(client.post(https.url('/ok'), 'Cg==', body)).rejects.toThrow(WebhookCallError);
    await expect(client.post(https.url('/ok'), undefined, body)).rejects.toThrow(/certificate/i);
    await client.close();
  });

  it('GETs the poll URL', async () => {
    http.tasks.set('abc', { finishedNames: ['p1'], finished: false, stop: false, message: 'half' });
    const client = new WebhookClient();
    await expect(client.get(http.url('/result?task-id=abc'), undefined)).resolves.toEqual({ success: true, finishedNames: ['p1'], finished: false, stop: false, message: 'half' });
    await client.close();
  });

  it('refuses URLs outside the allow-list without calling them', async () => {
    const client = new WebhookClient({ allowedPrefixes: [https.url('/')] });
    const before = http.calls.length;
    await expect(client.post(http.url('/ok'), undefined, body)).rejects.toThrow(/not allowed by --transition-rule-webhook-allowed-prefixes/);
    expect(http.calls.length).toBe(before);
    await expect(client.post(https.url('/ok'), certs.caBundle, body)).resolves.toMatchObject({ success: true });
    await client.close();
  });

  it('runs at most maxConcurrentCalls at once', async () => {
    const server = await new TestWebhookServer().listen();
    server.on('POST', '/slow', () => 'hang');
    const client = new WebhookClient({ maxConcurrentCalls: 3 });
    const calls = Array.from({ length: 8 }, () => client.post(server.url('/slow'), undefined, body));
    const arrived = async (n: number): Promise<void> => {
      for (let i = 0; i < 200 && server.calls.length < n; i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 50));
      expect(server.calls.length).toBe(n);
    };
    // The server holds every call until released: only three reach it at a time.
    await arrived(3);
    expect(client.pending).toBe(8);
    server.releaseHanging();
    await arrived(6);
    server.releaseHanging();
    await arrived(8);
    server.releaseHanging();
    await expect(Promise.all(calls)).resolves.toHaveLength(8);
    await client.close();
    await server.close();
  });
});
