// The webhook HTTP client against a real loopback server (HTTP and HTTPS): every failure mode
// becomes a WebhookCallError naming its cause, and the bounds (timeout, 1 MiB, concurrency,
// allow-list, caBundle as the only roots) hold.
import type { LookupFunction } from 'node:net';
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
    await expect(client.post({ url: http.url('/ok'), caBundle: undefined, namespace: 'ns' }, body)).resolves.toEqual({ success: true, message: 'ok' });
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
    const err = await client.post({ url: http.url(path), caBundle: undefined, namespace: 'ns' }, body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookCallError);
    expect((err as Error).message).toMatch(message);
    await client.close();
  });

  it('a hanging server times out with the configured timeout', async () => {
    const client = new WebhookClient({ timeoutMs: 300 });
    const started = Date.now();
    await expect(client.post({ url: http.url('/hang'), caBundle: undefined, namespace: 'ns' }, body)).rejects.toThrow(/timed out after 0.3s/);
    expect(Date.now() - started).toBeLessThan(5_000);
    await client.close();
  });

  it('a dead endpoint is a transport error, not a crash', async () => {
    const client = new WebhookClient({ timeoutMs: 2_000 });
    await expect(client.post({ url: 'http://127.0.0.1:1/dead', caBundle: undefined, namespace: 'ns' }, body)).rejects.toThrow(/ECONNREFUSED/);
    await client.close();
  });

  it('trusts the caBundle as roots for https, and refuses a server it does not vouch for', async () => {
    const client = new WebhookClient();
    await expect(client.post({ url: https.url('/ok'), caBundle: certs.caBundle, namespace: 'ns' }, body)).resolves.toMatchObject({ success: true });
    // Without the bundle (or "Cg==", which means none) the test CA is not trusted.
    await expect(client.post({ url: https.url('/ok'), caBundle: 'Cg==', namespace: 'ns' }, body)).rejects.toThrow(WebhookCallError);
    await expect(client.post({ url: https.url('/ok'), caBundle: undefined, namespace: 'ns' }, body)).rejects.toThrow(/certificate/i);
    await client.close();
  });

  it('GETs the poll URL', async () => {
    http.tasks.set('abc', { finishedNames: ['p1'], finished: false, stop: false, message: 'half' });
    const client = new WebhookClient();
    await expect(client.get({ url: http.url('/result?task-id=abc'), namespace: 'ns' })).resolves.toEqual({ success: true, finishedNames: ['p1'], finished: false, stop: false, message: 'half' });
    await client.close();
  });

  it('refuses URLs outside the allow-list without calling them', async () => {
    const client = new WebhookClient({ allowedOrigins: [https.url('/')] });
    const before = http.calls.length;
    await expect(client.post({ url: http.url('/ok'), caBundle: undefined, namespace: 'ns' }, body)).rejects.toThrow(/not allowed by --transition-rule-webhook-allowed-prefixes/);
    expect(http.calls.length).toBe(before);
    await expect(client.post({ url: https.url('/ok'), caBundle: certs.caBundle, namespace: 'ns' }, body)).resolves.toMatchObject({ success: true });
    await client.close();
  });

  it('runs at most maxConcurrentCalls at once', async () => {
    const server = await new TestWebhookServer().listen();
    server.on('POST', '/slow', () => 'hang');
    const client = new WebhookClient({ maxConcurrentCalls: 3, maxConcurrentCallsPerNamespace: 3 });
    const calls = Array.from({ length: 8 }, () => client.post({ url: server.url('/slow'), caBundle: undefined, namespace: 'ns' }, body));
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

  it('the body of an error answer shows short and without control characters', async () => {
    const server = await new TestWebhookServer().listen();
    server.on('POST', '/noisy', () => ({ status: 502, raw: `bad gateway\r\n\u001b[31m${'x'.repeat(10_000)}` }));
    const client = new WebhookClient();
    const err = (await client.post({ url: server.url('/noisy'), namespace: 'ns' }, body).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/HTTP 502: bad gateway {3}\[31mx+\.\.\. \[cut, 10018 bytes\]$/);
    // eslint-disable-next-line no-control-regex
    expect(err.message).not.toMatch(/[\u0000-\u001f]/);
    expect(Buffer.byteLength(err.message)).toBeLessThanOrEqual(512);
    await client.close();
    await server.close();
  });
});

/** A resolver answering from a table, as DNS would (a rebinding server answers what it likes). */
function fakeDns(table: Record<string, string>): LookupFunction {
  return (hostname, options, callback) => {
    const address = table[hostname];
    if (!address) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    const family = address.includes(':') ? 6 : 4;
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

describe('WebhookClient: where calls may go', () => {
  it('the allow-list matches the parsed origin: user information naming an allowed host does not pass', async () => {
    const port = new URL(http.url('/')).port;
    const client = new WebhookClient({ allowedOrigins: [`http://hooks.test:${port}`], lookup: fakeDns({ 'hooks.test': '127.0.0.1' }) });
    const before = http.calls.length;
    await expect(client.post({ url: `http://hooks.test:${port}@127.0.0.1:${port}/ok`, namespace: 'ns' }, body)).rejects.toThrow(/is not allowed by --transition-rule-webhook-allowed-prefixes/);
    expect(http.calls.length).toBe(before);
    await expect(client.post({ url: `http://hooks.test:${port}/ok`, namespace: 'ns' }, body)).resolves.toMatchObject({ success: true });
    await client.close();
  });

  it('refuses a link-local or metadata address named literally, without dialling', async () => {
    const client = new WebhookClient({ timeoutMs: 60_000 });
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fd00:ec2::254]/', 'http://[fe80::1]:8080/x', 'http://0xa9fea9fe/']) {
      const started = Date.now();
      await expect(client.post({ url, namespace: 'ns' }, body)).rejects.toThrow(/link-local or cloud-metadata address, refused unless --transition-rule-webhook-allow-link-local is set/);
      expect(Date.now() - started).toBeLessThan(1_000);
    }
    await client.close();
  });

  it('refuses a name that resolves to a link-local address (checked on the address dialled, so DNS rebinding is refused)', async () => {
    const client = new WebhookClient({ timeoutMs: 60_000, lookup: fakeDns({ 'rebound.test': '169.254.169.254', 'v6.test': 'fe80::1' }) });
    await expect(client.post({ url: 'http://rebound.test/check', namespace: 'ns' }, body)).rejects.toThrow(/rebound\.test \(169\.254\.169\.254\) is a link-local or cloud-metadata address/);
    await expect(client.get({ url: 'https://v6.test/result?task-id=1', namespace: 'ns' })).rejects.toThrow(/v6\.test \(fe80::1\) is a link-local/);
    await client.close();
  });

  it('with allowLinkLocal the address is dialled (here it does not answer: the error is the network\'s, not a refusal)', async () => {
    const client = new WebhookClient({ timeoutMs: 300, allowLinkLocal: true, lookup: fakeDns({ 'rebound.test': '169.254.0.1' }) });
    const err = (await client.post({ url: 'http://rebound.test/check', namespace: 'ns' }, body).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(WebhookCallError);
    expect(err.message).not.toMatch(/link-local/);
    await client.close();
  });
});

describe('WebhookClient: fairness', () => {
  it('one namespace\'s hanging webhooks hold only its share: another namespace\'s call goes through at once', async () => {
    const server = await new TestWebhookServer().listen();
    server.on('POST', '/slow', () => 'hang');
    const client = new WebhookClient({ maxConcurrentCalls: 4, maxConcurrentCallsPerNamespace: 2 });
    const stuck = Array.from({ length: 10 }, () => client.post({ url: server.url('/slow'), namespace: 'noisy' }, body).catch(() => 'released'));
    for (let i = 0; i < 100 && server.calls.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    await expect(client.post({ url: server.url('/ok'), namespace: 'quiet' }, body)).resolves.toMatchObject({ success: true });
    expect(Date.now() - started).toBeLessThan(2_000);
    // The noisy namespace never had more than its two calls out at once.
    expect(server.callsTo('/slow')).toHaveLength(2);
    expect(client.pending).toBe(10);
    for (let round = 0; round < 5; round++) {
      server.releaseHanging();
      await new Promise((r) => setTimeout(r, 50));
    }
    await Promise.all(stuck);
    await client.close();
    await server.close();
  });

  it('a call whose signal aborts while it waits for a slot leaves the queue', async () => {
    const server = await new TestWebhookServer().listen();
    server.on('POST', '/slow', () => 'hang');
    const client = new WebhookClient({ maxConcurrentCalls: 1, maxConcurrentCallsPerNamespace: 1 });
    const first = client.post({ url: server.url('/slow'), namespace: 'a' }, body).catch(() => 'released');
    const abort = new AbortController();
    const waiting = client.post({ url: server.url('/ok'), namespace: 'a', signal: abort.signal }, body);
    abort.abort(new Error('controller stopped'));
    await expect(waiting).rejects.toThrow(/controller stopped/);
    expect(client.pending).toBe(1);
    for (let i = 0; i < 100 && server.calls.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    server.releaseHanging();
    await first;
    await client.close();
    await server.close();
  });
});
