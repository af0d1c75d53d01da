// The transport keeps a bounded set of warm connections for requests, and watches outside it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/client.ts';
import { KubeConfigTransport, REQUEST_CONNECTIONS, sameConnectionSettings, type Transport } from '../../src/client/transport.ts';

interface Fake {
  server: Server;
  url: string;
  connections: () => number;
}

async function fakeApiserver(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Fake> {
  let connections = 0;
  const server = createServer(handler);
  // Like the apiserver (Go): no Keep-Alive header telling the client how long idle connections
  // live, and no closing them after 5 s as Node's server does by default.
  server.keepAliveTimeout = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

function transportTo(url: string): KubeConfigTransport {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new KubeConfigTransport(kc, 'transport-pool-test');
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const get = (t: KubeConfigTransport, longRunning = false) => t.send({ method: 'GET', path: '/api/v1/pods', longRunning });

describe('KubeConfigTransport connection pools', () => {
  it('queues a burst of requests on a bounded set of connections instead of one connection each', async () => {
    const fake = await fakeApiserver((_req, res) => setTimeout(() => res.end('{}'), 20));
    servers.push(fake.server);
    const t = transportTo(fake.url);
    const answers = await Promise.all(Array.from({ length: 4 * REQUEST_CONNECTIONS }, () => get(t).then((r) => r.text())));
    expect(answers.every((a) => a === '{}')).toBe(true);
    expect(fake.connections()).toBeLessThanOrEqual(REQUEST_CONNECTIONS);
  });

  it('keeps idle connections open between bursts (undici would close them after 4 s)', async () => {
    const fake = await fakeApiserver((_req, res) => res.end('{}'));
    servers.push(fake.server);
    const t = transportTo(fake.url);
    await Promise.all(Array.from({ length: 8 }, () => get(t).then((r) => r.text())));
    const afterFirstBurst = fake.connections();
    await new Promise((r) => setTimeout(r, 4_500));
    await Promise.all(Array.from({ length: 8 }, () => get(t).then((r) => r.text())));
    expect(fake.connections()).toBe(afterFirstBurst);
  });

  it('serves requests while more watches than the pool holds stay open', async () => {
    const open: ServerResponse[] = [];
    const fake = await fakeApiserver((req, res) => {
      if (req.url?.includes('watch')) {
        res.writeHead(200);
        res.write('');
        open.push(res);
        return;
      }
      res.end('{"kind":"PodList"}');
    });
    servers.push(fake.server);
    const t = transportTo(fake.url);
    const watches = await Promise.all(Array.from({ length: REQUEST_CONNECTIONS + 4 }, () => t.send({ method: 'GET', path: '/api/v1/pods?watch=1', longRunning: true })));
    expect(watches.every((w) => w.status === 200)).toBe(true);
    const answer = await Promise.race([get(t).then((r) => r.text()), new Promise((r) => setTimeout(() => r('starved'), 2_000))]);
    expect(answer).toBe('{"kind":"PodList"}');
    for (const res of open) res.end();
  });
});

describe('KubeClient.maxConcurrentRequests', () => {
  it('is what the transport sends at once, so callers with many writes bound them to it', () => {
    expect(new KubeClient({ transport: transportTo('http://127.0.0.1:1') }).maxConcurrentRequests).toBe(REQUEST_CONNECTIONS);
  });

  it('is unbounded for a transport that does not say', () => {
    const transport: Transport = { host: 'x', send: () => Promise.reject(new Error('unused')) };
    expect(new KubeClient({ transport }).maxConcurrentRequests).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('sameConnectionSettings (checked on every request: the pool is kept while it holds)', () => {
  const pem = (s: string) => Buffer.from(`-----BEGIN CERTIFICATE-----\n${s}\n-----END CERTIFICATE-----\n`);

  it('holds for certificates read afresh with the same bytes, as client-node hands them per request', () => {
    expect(sameConnectionSettings({ ca: pem('A'), cert: pem('C'), key: [{ pem: 'K', passphrase: 'p' }], rejectUnauthorized: true }, { ca: pem('A'), cert: pem('C'), key: [{ pem: 'K', passphrase: 'p' }], rejectUnauthorized: true })).toBe(true);
    expect(sameConnectionSettings({}, {})).toBe(true);
  });

  it.each([
    ['a rotated client certificate', { cert: pem('C1') }, { cert: pem('C2') }],
    ['a CA added to the bundle', { ca: [pem('A')] }, { ca: [pem('A'), pem('B')] }],
    ['a key\'s new passphrase', { key: [{ pem: 'K', passphrase: 'p' }] }, { key: [{ pem: 'K', passphrase: 'q' }] }],
    ['a setting appearing', { ca: pem('A') }, { ca: pem('A'), servername: 'api' }],
    ['the same bytes as a string instead of a Buffer', { ca: pem('A') }, { ca: pem('A').toString() }],
  ])('fails for %s: a new pool', (_what, a, b) => {
    expect(sameConnectionSettings(a, b)).toBe(false);
    expect(sameConnectionSettings(b, a)).toBe(false);
  });
});
