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
