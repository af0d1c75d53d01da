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

/** The test servers listen on 127.0.0.1: loopback is refused unless allowed. */
const LOCAL = { allowAddresses: ['loopback'] };

const body = { traceId: 't', stage: 'PreCheck', ruleName: 'r', resources: [{ apiVersion: 'v1', kind: 'Pod', name: 'p1' }] };

describe('WebhookClient', () => {
  it('POSTs JSON and returns the parsed answer', async () => {
    const client = new WebhookClient(LOCAL);
    await expect(client.post({ url: http.url('/ok'), caBundle: undefined, namespace: 'ns' }, body)).resolves.toEqual({ success: true, message: 'ok' });
    expect(http.callsTo('/ok').at(-1)?.body).toEqual(body);
    await client.close();
  });

  it.each([
    ['/500', /HTTP 500$/, { class: 'http-status', status: 500 }],
    ['/garbage', /response is not JSON$/, { class: 'response-not-json' }],
    ['/huge', /response body exceeds 1048576 bytes/, { class: 'response-too-large' }],
    ['/missing', /HTTP 404$/, { class: 'http-status', status: 404 }],
  ])('%s is an error naming the cause, of a fixed class', async (path, message, failure) => {
    const client = new WebhookClient(LOCAL);
    const err = await client.post({ url: http.url(path), caBundle: undefined, namespace: 'ns' }, body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookCallError);
    expect((err as Error).message).toMatch(message);
    expect((err as WebhookCallError).failure).toEqual(failure);
    await client.close();
  });

  it('a hanging server times out with the configured timeout', async () => {
    const client = new WebhookClient({ ...LOCAL, timeoutMs: 300 });
    const started = Date.now();
    await expect(client.post({ url: http.url('/hang'), caBundle: undefined, namespace: 'ns' }, body)).rejects.toThrow(/timed out after 0.3s/);
    expect(Date.now() - started).toBeLessThan(5_000);
    await client.close();
  });

  it('a dead endpoint is a transport error, not a crash', async () => {
    const client = new WebhookClient({ ...LOCAL, timeoutMs: 2_000 });
    await expect(client.post({ url: 'http://127.0.0.1:1/dead', caBundle: undefined, namespace: 'ns' }, body)).rejects.toThrow(/ECONNREFUSED/);
    await client.close();
  });

  it('trusts the caBundle as roots for https, and refuses a server it does not vouch for', async () => {
    const client = new WebhookClient(LOCAL);
    await expect(client.post({ url: https.url('/ok'), caBundle: certs.caBundle, namespace: 'ns' }, body)).resolves.toMatchObject({ success: true });
    // Without the bundle (or "Cg==", which means none) the test CA is not trusted.
    await expect(client.post({ url: https.url('/ok'), caBundle: 'Cg==', namespace: 'ns' }, body)).rejects.toThrow(WebhookCallError);
    await expect(client.post({ url: https.url('/ok'), caBundle: undefined, namespace: 'ns' }, body)).rejects.toThrow(/certificate/i);
    await client.close();
  });

  it('GETs the poll URL', async () => {
    http.tasks.set('abc', { finishedNames: ['p1'], finished: false, stop: false, message: 'half' });
    const client = new WebhookClient(LOCAL);
    await expect(client.get({ url: http.url('/result?task-id=abc'), namespace: 'ns' })).resolves.toEqual({ success: true, finishedNames: ['p1'], finished: false, stop: false, message: 'half' });
    await client.close();
  });

  it('refuses URLs outside the allow-list without calling them', async () => {
    const client = new WebhookClient({ ...LOCAL, allowedOrigins: [https.url('/')] });
    const before = http.calls.length;
    await expect(client.post({ url: http.url('/ok'), caBundle: undefined, namespace: 'ns' }, body)).rejects.toThrow(/not allowed by --transition-rule-webhook-allowed-prefixes/);
    expect(http.calls.length).toBe(before);
    await expect(client.post({ url: https.url('/ok'), caBundle: certs.caBundle, namespace: 'ns' }, body)).resolves.toMatchObject({ success: true });
    await client.close();
  });

  it('runs at most maxConcurrentCalls at once', async () => {
    const server = await new TestWebhookServer().listen();
    server.on('POST', '/slow', () => 'hang');
    const client = new WebhookClient({ ...LOCAL, maxConcurrentCalls: 3, maxConcurrentCallsPerNamespace: 3 });
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

  it('an error answer\'s body never reaches the error: only its status', async () => {
    const server = await new TestWebhookServer().listen();
    server.on('POST', '/noisy', () => ({ status: 502, raw: `internal-secret-token\r\n${'x'.repeat(10_000)}` }));
    const client = new WebhookClient(LOCAL);
    const err = (await client.post({ url: server.url('/noisy'), namespace: 'ns' }, body).catch((e: unknown) => e)) as WebhookCallError;
    expect(err.message).toBe(`POST ${server.url('/noisy')}: HTTP 502`);
    expect(err.failure).toEqual({ class: 'http-status', status: 502 });
    await client.close();
    await server.close();
  });

  it(`refuses to send a body over the request cap, without calling`, async () => {
    const client = new WebhookClient({ ...LOCAL, maxRequestBytes: 1_000 });
    const before = http.calls.length;
    const big = { ...body, resources: [{ apiVersion: 'v1', kind: 'Pod', name: 'p1', parameters: { a: 'x'.repeat(1_000) } }] };
    const err = (await client.post({ url: http.url('/ok'), namespace: 'ns' }, big).catch((e: unknown) => e)) as WebhookCallError;
    expect(err.failure).toEqual({ class: 'request-too-large' });
    expect(http.calls.length).toBe(before);
    await client.close();
  });

  it('keeps one agent per caBundle in a small LRU: rewriting caBundles does not grow it', async () => {
    const client = new WebhookClient(LOCAL);
    const pem = Buffer.from(certs.caBundle, 'base64').toString('utf8');
    for (let i = 0; i < 50; i++) {
      // The same roots with different whitespace: a new bundle each time, as a tenant rewriting it would make.
      const caBundle = Buffer.from(`${pem}${'\n'.repeat(i + 1)}`).toString('base64');
      await expect(client.post({ url: https.url('/ok'), caBundle, namespace: 'ns' }, body)).resolves.toMatchObject({ success: true });
    }
    expect(client.agentCount).toBeLessThanOrEqual(32);
    await client.close();
  });

  it('refuses a caBundle with bytes outside its PEM blocks when calling (admission refuses it too)', async () => {
    const client = new WebhookClient(LOCAL);
    const pem = Buffer.from(certs.caBundle, 'base64').toString('utf8');
    const caBundle = Buffer.from(`${pem}junk`).toString('base64');
    const err = (await client.post({ url: https.url('/ok'), caBundle, namespace: 'ns' }, body).catch((e: unknown) => e)) as WebhookCallError;
    expect(err.failure).toEqual({ class: 'invalid-ca-bundle' });
    await client.close();
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
    const client = new WebhookClient({ ...LOCAL, allowedOrigins: [`http://hooks.test:${port}`], lookup: fakeDns({ 'hooks.test': '127.0.0.1' }) });
    const before = http.calls.length;
    await expect(client.post({ url: `http://hooks.test:${port}@127.0.0.1:${port}/ok`, namespace: 'ns' }, body)).rejects.toThrow(/is not allowed by --transition-rule-webhook-allowed-prefixes/);
    expect(http.calls.length).toBe(before);
    await expect(client.post({ url: `http://hooks.test:${port}/ok`, namespace: 'ns' }, body)).resolves.toMatchObject({ success: true });
    await client.close();
  });

  it('refuses every default-refused address named literally, without dialling', async () => {
    const client = new WebhookClient({ timeoutMs: 60_000 });
    for (const [url, cls] of [
      ['http://169.254.169.254/latest/meta-data', 'link-local'],
      ['http://[fd00:ec2::254]/', 'link-local'],
      ['http://[fe80::1]:8080/x', 'link-local'],
      ['http://0xa9fea9fe/', 'link-local'],
      ['http://100.100.100.200/latest/meta-data', 'cloud-metadata'],
      ['http://168.63.129.16/machine', 'cloud-metadata'],
      ['http://100.64.0.1/', 'shared-address-space'],
      ['http://0.0.0.0:8080/', 'unspecified'],
      ['http://[::]:8080/', 'unspecified'],
      ['http://127.0.0.1:8080/', 'loopback'],
      ['http://[::1]:8080/', 'loopback'],
      ['http://[64:ff9b::a9fe:a9fe]/', 'link-local'],
      ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ] as const) {
      const started = Date.now();
      const err = (await client.post({ url, namespace: 'ns' }, body).catch((e: unknown) => e)) as WebhookCallError;
      expect(err.failure).toEqual({ class: 'address-refused' });
      expect(err.message).toMatch(new RegExp(`is a ${cls} address, refused unless --transition-rule-webhook-allow-addresses lists ${cls}`));
      expect(Date.now() - started).toBeLessThan(1_000);
    }
    await client.close();
  });

  it('refuses a name that resolves to a refused address (checked on the address dialled, so DNS rebinding is refused)', async () => {
    const client = new WebhookClient({ timeoutMs: 60_000, lookup: fakeDns({ 'rebound.test': '169.254.169.254', 'v6.test': 'fe80::1', 'local.test': '127.0.0.1', 'azure.test': '168.63.129.16' }) });
    await expect(client.post({ url: 'http://rebound.test/check', namespace: 'ns' }, body)).rejects.toThrow(/rebound\.test resolves to 169\.254\.169\.254 is a link-local address/);
    await expect(client.get({ url: 'https://v6.test/result?task-id=1', namespace: 'ns' })).rejects.toThrow(/v6\.test resolves to fe80::1 is a link-local/);
    await expect(client.get({ url: 'http://azure.test/', namespace: 'ns' })).rejects.toThrow(/168\.63\.129\.16 is a cloud-metadata address/);
    // A real server listens there: the refusal is the policy's, before a byte is sent.
    const port = new URL(http.url('/')).port;
    const before = http.calls.length;
    const err = (await client.post({ url: `http://local.test:${port}/ok`, namespace: 'ns' }, body).catch((e: unknown) => e)) as WebhookCallError;
    expect(err.failure).toEqual({ class: 'address-refused' });
    expect(http.calls.length).toBe(before);
    await client.close();
  });

  it('a private address outside the narrowed list is refused when dialled', async () => {
    const client = new WebhookClient({ timeoutMs: 60_000, privateCidrs: ['10.96.0.0/12'], lookup: fakeDns({ 'svc.test': '10.0.0.5' }) });
    await expect(client.post({ url: 'http://svc.test/check', namespace: 'ns' }, body)).rejects.toThrow(/10\.0\.0\.5 is a private address outside --transition-rule-webhook-private-cidrs/);
    await client.close();
  });

  it('with link-local allowed the address is dialled (here it does not answer: the error is the network\'s, not a refusal)', async () => {
    const client = new WebhookClient({ timeoutMs: 300, allowAddresses: ['link-local'], lookup: fakeDns({ 'rebound.test': '169.254.0.1' }) });
    const err = (await client.post({ url: 'http://rebound.test/check', namespace: 'ns' }, body).catch((e: unknown) => e)) as WebhookCallError;
    expect(err).toBeInstanceOf(WebhookCallError);
    expect(err.failure.class).not.toBe('address-refused');
    await client.close();
  });
});

describe('WebhookClient: fairness', () => {
  it('one namespace\'s hanging webhooks hold only its share: another namespace\'s call goes through at once', async () => {
    const server = await new TestWebhookServer().listen();
    server.on('POST', '/slow', () => 'hang');
    const client = new WebhookClient({ ...LOCAL, maxConcurrentCalls: 4, maxConcurrentCallsPerNamespace: 2 });
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
    const client = new WebhookClient({ ...LOCAL, maxConcurrentCalls: 1, maxConcurrentCallsPerNamespace: 1 });
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
