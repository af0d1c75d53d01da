import { describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse, Transport } from '@cloneset-suite/kube-runtime';
import { CountingTransport } from '../../src/counting-transport.ts';

const answer = { status: 200, headers: {}, body: '{}' } as unknown as HttpResponse;

function inner(maxConcurrentRequests?: number): Transport {
  return { host: 'https://127.0.0.1:6443', ...(maxConcurrentRequests !== undefined ? { maxConcurrentRequests } : {}), send: () => Promise.resolve(answer) };
}

describe('CountingTransport', () => {
  it('sends as many requests at once as the transport it wraps, so the controller under test keeps its shipped write concurrency', () => {
    expect(new CountingTransport(inner(32)).maxConcurrentRequests).toBe(32);
    expect(new CountingTransport(inner()).maxConcurrentRequests).toBeUndefined();
  });

  it('counts mutating requests by method and resource, and not reads', async () => {
    const t = new CountingTransport(inner(32));
    const req = (method: string, path: string): HttpRequest => ({ method, path }) as unknown as HttpRequest;
    await t.send(req('POST', '/api/v1/namespaces/a/pods'));
    await t.send(req('PATCH', '/api/v1/namespaces/a/pods/p1/status'));
    await t.send(req('PATCH', '/api/v1/namespaces/a/pods/p2/status'));
    await t.send(req('GET', '/api/v1/namespaces/a/pods'));
    expect(Object.fromEntries(t.byKind)).toEqual({ 'POST pods': 1, 'PATCH pods/status': 2 });
  });
});

describe('CountingTransport with a transport for leases', () => {
  it('sends Lease requests on their own transport, as the controller-manager\'s elector has its own connections, and counts them too', async () => {
    const sent: string[] = [];
    const named = (name: string): Transport => ({ host: 'h', send: (r) => (sent.push(`${name} ${r.method} ${r.path}`), Promise.resolve(answer)) });
    const t = new CountingTransport(named('main'), { leases: named('elector') });
    const req = (method: string, path: string): HttpRequest => ({ method, path }) as unknown as HttpRequest;
    await t.send(req('PUT', '/apis/coordination.k8s.io/v1/namespaces/a/leases/l'));
    await t.send(req('GET', '/apis/coordination.k8s.io/v1/namespaces/a/leases/l'));
    await t.send(req('POST', '/api/v1/namespaces/a/pods'));
    expect(sent).toEqual([
      'elector PUT /apis/coordination.k8s.io/v1/namespaces/a/leases/l',
      'elector GET /apis/coordination.k8s.io/v1/namespaces/a/leases/l',
      'main POST /api/v1/namespaces/a/pods',
    ]);
    expect(Object.fromEntries(t.byKind)).toEqual({ 'PUT leases': 1, 'POST pods': 1 });
  });
});
