import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/client.ts';
import {
  AlreadyExistsError,
  ApiError,
  ConflictError,
  GoneError,
  InvalidError,
  NotFoundError,
  TooManyRequestsError,
  isConflict,
  isNotFound,
} from '../../src/client/errors.ts';
import { Resources, resourcePath, type GroupVersionResource } from '../../src/client/gvr.ts';
import { jsonPatch, jsonPointerEscape, mergePatch, strategicMergePatch, applyPatch } from '../../src/client/patch.ts';
import { readWatchEvents } from '../../src/client/watch-stream.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { createMetrics } from '../../src/metrics.ts';
import { FakeClock } from '../../src/util/clock.ts';
import { FakeTransport, LiveStream, status, type FakeAnswer } from '../support/fake-transport.ts';
import type { HttpRequest } from '../../src/client/transport.ts';

const cloneSets: GroupVersionResource = {
  group: 'apps.kruise.io',
  version: 'v1alpha1',
  resource: 'clonesets',
  kind: 'CloneSet',
  namespaced: true,
};

function setup(handler?: ConstructorParameters<typeof FakeTransport>[0]) {
  const transport = new FakeTransport(handler);
  const metrics = createMetrics();
  const client = new KubeClient({ transport, metrics, qps: 0 });
  return { transport, metrics, client };
}

describe('resource paths', () => {
  it('builds core, group, cluster-scoped and subresource paths', () => {
    expect(resourcePath(Resources.pods, 'ns', 'p')).toBe('/api/v1/namespaces/ns/pods/p');
    expect(resourcePath(Resources.pods)).toBe('/api/v1/pods');
    expect(resourcePath(Resources.nodes, undefined, 'n1')).toBe('/api/v1/nodes/n1');
    expect(resourcePath(cloneSets, 'ns', 'cs', 'scale')).toBe('/apis/apps.kruise.io/v1alpha1/namespaces/ns/clonesets/cs/scale');
    expect(resourcePath(Resources.leases, 'kube-system', 'x')).toBe('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x');
  });
});

describe('typed errors', () => {
  const cases: [ReturnType<typeof status>, new (...a: never[]) => ApiError][] = [
    [status(404, 'NotFound', 'pods "x" not found', { name: 'x', kind: 'pods' }), NotFoundError],
    [status(409, 'Conflict', 'the object has been modified'), ConflictError],
    [status(409, 'AlreadyExists', 'pods "x" already exists'), AlreadyExistsError],
    [status(410, 'Expired', 'too old resource version'), GoneError],
    [status(422, 'Invalid', 'Pod "x" is invalid', { causes: [{ field: 'spec.containers', reason: 'FieldValueRequired' }] }), InvalidError],
    [status(429, 'TooManyRequests', 'slow down'), TooManyRequestsError],
  ];
  for (const [answer, Ctor] of cases) {
    it(`maps ${answer.status} to ${Ctor.name}`, async () => {
      const { client } = setup(() => ({ ...answer, headers: { 'Retry-After': '7' } }));
      const err: unknown = await client.resource(Resources.pods).get('ns', 'x').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Ctor);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).message).toContain('GET /api/v1/namespaces/ns/pods/x');
    });
  }

  it('carries field causes and Retry-After', async () => {
    const { client } = setup((req) =>
      req.method === 'POST'
        ? status(422, 'Invalid', 'invalid', { causes: [{ field: 'metadata.name', message: 'bad' }] })
        : { ...status(429, 'TooManyRequests', 'later'), headers: { 'Retry-After': '3' } },
    );
    const pods = client.resource(Resources.pods);
    const invalid = await pods.create({ metadata: { name: 'X', namespace: 'ns' } }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidError);
    expect((invalid as InvalidError).causes).toEqual([{ field: 'metadata.name', message: 'bad' }]);
    const tooMany = await pods.get('ns', 'p').catch((e: unknown) => e);
    expect((tooMany as TooManyRequestsError).retryAfterSeconds).toBe(3);
  });

  it("says whether the answer was the apiserver's own Status or a page from something in front of it", async () => {
    const { client } = setup((req) =>
      req.path.endsWith('/a') ? status(503, 'ServiceUnavailable', 'the server is currently unable to handle the request') : { status: 503, body: '<html>503 Service Unavailable</html>' },
    );
    const pods = client.resource(Resources.pods);
    const fromApiserver = (await pods.get('ns', 'a').catch((e: unknown) => e)) as ApiError;
    const fromProxy = (await pods.get('ns', 'b').catch((e: unknown) => e)) as ApiError;
    expect([fromApiserver.code, fromApiserver.statusBody]).toEqual([503, true]);
    expect([fromProxy.code, fromProxy.statusBody, fromProxy.reason]).toEqual([503, false, 'ServiceUnavailable']);
  });

  it('maps non-Status bodies by code and transport failures to code 0', async () => {
    const { client, metrics } = setup(() => ({ status: 404, body: 'plain text' }));
    const err = await client.resource(Resources.pods).get('ns', 'x').catch((e: unknown) => e);
    expect(isNotFound(err)).toBe(true);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    const broken = setup(() => Promise.reject(refused));
    const err2 = await broken.client.resource(Resources.pods).get('ns', 'x').catch((e: unknown) => e);
    expect(err2).toBeInstanceOf(ApiError);
    expect((err2 as ApiError).code).toBe(0);
    expect((err2 as ApiError).message).toContain('ECONNREFUSED');
    // The transport's own error stays reachable: its code tells whether the request left.
    expect((err2 as ApiError).cause).toBe(refused);
    expect(await metrics.registry.getSingleMetricAsString('rest_client_requests_total')).toContain(
      'rest_client_requests_total{code="404",method="GET",host="fake:6443"} 1',
    );
  });
});

describe('request timeouts', () => {
  /** Answers only when the request is aborted, as a server that never replies. */
  const hanging = (req: HttpRequest): Promise<FakeAnswer> =>
    new Promise((_resolve, reject) => {
      if (req.signal?.aborted) reject(req.signal.reason as Error);
      req.signal?.addEventListener('abort', () => reject(req.signal?.reason as Error), { once: true });
    });

  it('gives up on a request without an answer after requestTimeoutMs, as a Timeout error', async () => {
    const transport = new FakeTransport(hanging);
    const client = new KubeClient({ transport, qps: 0, requestTimeoutMs: 50 });
    const err = await client.resource(Resources.pods).get('ns', 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).reason).toBe('Timeout');
    expect((err as ApiError).message).toContain('no answer within 50 ms (GET /api/v1/namespaces/ns/pods/x)');
  });

  it('bounds a watch only until its headers arrive: the stream itself outlives the timeout', async () => {
    const transport = new FakeTransport((req) => (req.query?.watch ? { stream: new LiveStream(req.signal) } : { body: {} }));
    const client = new KubeClient({ transport, qps: 0, requestTimeoutMs: 20 });
    const res = await client.rest.stream({ method: 'GET', path: '/api/v1/pods', query: { watch: true } });
    await new Promise((r) => setTimeout(r, 60));
    expect(transport.requests[0]?.signal?.aborted).toBe(false);
    expect(res.status).toBe(200);
  });

  it("reports the caller's own abort as such, not as a timeout", async () => {
    const transport = new FakeTransport(hanging);
    const client = new KubeClient({ transport, qps: 0, requestTimeoutMs: 10_000 });
    const ac = new AbortController();
    const pending = client.resource(Resources.pods).get('ns', 'x', { signal: ac.signal }).catch((e: unknown) => e);
    ac.abort(new Error('controller stopped'));
    const err = await pending;
    expect((err as ApiError).reason).toBe('TransportError');
    expect((err as ApiError).message).toContain('controller stopped');
  });
});

describe('ResourceClient verbs', () => {
  it('list sends selectors and pages with continue tokens', async () => {
    const { client, transport } = setup((req) => {
      const cont = req.query?.continue;
      if (!cont) return { body: { metadata: { resourceVersion: '10', continue: 'c1' }, items: [{ metadata: { name: 'a' } }] } };
      return { body: { metadata: { resourceVersion: '11' }, items: [{ metadata: { name: 'b' } }] } };
    });
    const list = await client.resource(Resources.configMaps).listAll({ namespace: 'ns', labelSelector: 'app=x', fieldSelector: 'metadata.name!=z', limit: 1 });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['a', 'b']);
    expect(list.metadata?.resourceVersion).toBe('10');
    expect(transport.requests.map((r) => r.query)).toEqual([
      expect.objectContaining({ labelSelector: 'app=x', fieldSelector: 'metadata.name!=z', limit: 1 }),
      expect.objectContaining({ continue: 'c1', limit: 1, resourceVersion: undefined }),
    ]);
  });

  it('patch sends the right content types and refuses strategic merge on custom resources', async () => {
    const { client, transport } = setup((req) => ({ body: { metadata: { name: 'x' }, seen: req.contentType } }));
    const pods = client.resource(Resources.pods);
    await pods.patch('ns', 'p', mergePatch({ metadata: { labels: { a: 'b' } } }));
    await pods.patch('ns', 'p', strategicMergePatch({ spec: {} }));
    await pods.patchStatus('ns', 'p', jsonPatch([{ op: 'replace', path: '/status/phase', value: 'Running' }], { resourceVersion: '42' }));
    await pods.patch('ns', 'p', applyPatch({ metadata: {} }, { force: true }), { fieldManager: 'me' });
    await pods.patchSubresource('ns', 'p', 'resize', strategicMergePatch({ spec: { containers: [] } }));
    expect(transport.requests.map((r) => [r.path, r.contentType])).toEqual([
      ['/api/v1/namespaces/ns/pods/p', 'application/merge-patch+json'],
      ['/api/v1/namespaces/ns/pods/p', 'application/strategic-merge-patch+json'],
      ['/api/v1/namespaces/ns/pods/p/status', 'application/json-patch+json'],
      ['/api/v1/namespaces/ns/pods/p', 'application/apply-patch+yaml'],
      ['/api/v1/namespaces/ns/pods/p/resize', 'application/strategic-merge-patch+json'],
    ]);
    expect(JSON.parse(transport.requests[2]!.body!)).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '42' },
      { op: 'replace', path: '/status/phase', value: 'Running' },
    ]);
    expect(transport.requests[3]!.query).toMatchObject({ fieldManager: 'me', force: true });
    const cs = client.resource(cloneSets);
    await expect(cs.patch('ns', 'cs', strategicMergePatch({}))).rejects.toThrow(/strategic merge/);
    await expect(pods.patch('ns', 'p', applyPatch({}))).rejects.toThrow(/fieldManager/);
    expect(jsonPointerEscape('apps.kruise.io/x~y')).toBe('apps.kruise.io~1x~0y');
  });

  it('a 422 on a JSON patch whose resourceVersion test no longer holds is a Conflict', async () => {
    let currentRV = '6';
    const { client } = setup((req) =>
      req.method === 'GET'
        ? { body: { metadata: { name: 'c', resourceVersion: currentRV } } }
        : status(422, 'Invalid', 'the server rejected our request due to an error in our request'),
    );
    const cms = client.resource(Resources.configMaps);
    const op = [{ op: 'replace' as const, path: '/data/x', value: '1' }];
    const lost = await cms.patch('ns', 'c', jsonPatch(op, { resourceVersion: '5' })).catch((e: unknown) => e);
    expect(isConflict(lost)).toBe(true);
    expect((lost as ConflictError).code).toBe(409);
    // Same version still current: the patch itself was invalid.
    currentRV = '5';
    const invalid = await cms.patch('ns', 'c', jsonPatch(op, { resourceVersion: '5' })).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidError);
    const plain = await cms.patch('ns', 'c', jsonPatch(op)).catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(InvalidError);
  });

  it('a 422 on a JSON patch whose test of a value (an owner entry, a list) no longer holds is a Conflict', async () => {
    let current: unknown = { metadata: { name: 'c', ownerReferences: [{ uid: 'cs-uid' }] }, spec: { list: ['a', 'b'] } };
    const { client } = setup((req) => (req.method === 'GET' ? { body: current } : status(422, 'Invalid', 'the server rejected our request due to an error in our request')));
    const cms = client.resource(Resources.configMaps);
    const patch = jsonPatch([
      { op: 'test', path: '/metadata/ownerReferences/0', value: { uid: 'cs-uid' } },
      { op: 'test', path: '/spec/list', value: ['a', 'b'] },
      { op: 'replace', path: '/metadata/ownerReferences/0', value: { uid: 'pod-uid' } },
    ]);
    // Every tested value is still there: the patch itself is wrong.
    expect(await cms.patch('ns', 'c', patch).catch((e: unknown) => e)).toBeInstanceOf(InvalidError);
    // Someone changed the list meanwhile: a lost race.
    current = { metadata: { name: 'c', ownerReferences: [{ uid: 'cs-uid' }] }, spec: { list: ['a'] } };
    expect(isConflict(await cms.patch('ns', 'c', patch).catch((e: unknown) => e))).toBe(true);
    // The tested entry is gone (index past the end).
    current = { metadata: { name: 'c', ownerReferences: [] }, spec: { list: ['a', 'b'] } };
    expect(isConflict(await cms.patch('ns', 'c', patch).catch((e: unknown) => e))).toBe(true);
    // The object is gone (or cannot be read back): a lost race too.
    current = undefined;
    expect(isConflict(await cms.patch('ns', 'c', patch).catch((e: unknown) => e))).toBe(true);
  });

  it('create fills apiVersion/kind, delete sends preconditions and propagation policy, scale uses the subresource', async () => {
    const { client, transport } = setup(() => ({ body: { kind: 'Status', status: 'Success' } }));
    const cs = client.resource<KubeObject & { spec?: unknown }>(cloneSets);
    await cs.create({ metadata: { name: 'cs', namespace: 'ns' }, spec: {} }, { fieldManager: 'ctl', dryRun: true });
    await cs.delete('ns', 'cs', { preconditions: { uid: 'u1', resourceVersion: '9' }, propagationPolicy: 'Foreground' });
    await cs.patchScale('ns', 'cs', mergePatch({ spec: { replicas: 3 } }));
    await cs.getScale('ns', 'cs');
    const [create, del, scale, getScale] = transport.requests;
    expect(create).toMatchObject({ method: 'POST', path: '/apis/apps.kruise.io/v1alpha1/namespaces/ns/clonesets', query: { fieldManager: 'ctl', dryRun: 'All' } });
    expect(JSON.parse(create!.body!)).toMatchObject({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet' });
    expect(JSON.parse(del!.body!)).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      preconditions: { uid: 'u1', resourceVersion: '9' },
      propagationPolicy: 'Foreground',
    });
    expect(scale!.path).toBe('/apis/apps.kruise.io/v1alpha1/namespaces/ns/clonesets/cs/scale');
    expect(getScale!.method).toBe('GET');
    expect(() => cs.get(undefined, 'cs')).toThrow(/namespaced/);
  });

  it('rate limits all requests through one token bucket', async () => {
    const clock = new FakeClock();
    const transport = new FakeTransport(() => ({ body: {} }));
    const client = new KubeClient({ transport, clock, qps: 2, burst: 2 });
    const pods = client.resource(Resources.pods);
    const cms = client.resource(Resources.configMaps);
    const done: number[] = [];
    const calls = [pods.get('ns', 'a'), cms.get('ns', 'b'), pods.get('ns', 'c'), cms.get('ns', 'd')].map((p) =>
      p.then(() => done.push(clock.now())),
    );
    await clock.advance(0);
    expect(done).toEqual([0, 0]);
    await clock.advance(499);
    expect(done).toHaveLength(2);
    await clock.advance(1);
    expect(done).toEqual([0, 0, 500]);
    await clock.advance(500);
    await Promise.all(calls);
    expect(done).toEqual([0, 0, 500, 1000]);
  });
});

describe('watch stream', () => {
  it('parses events split across chunks and rejects garbage', async () => {
    async function* chunks(parts: string[]) {
      const enc = new TextEncoder();
      for (const p of parts) yield await Promise.resolve(enc.encode(p));
    }
    const events = [];
    for await (const e of readWatchEvents(chunks(['{"type":"ADDED","object":{"metadata":{"na', 'me":"a"}}}\n{"type":"BOOKMARK",', '"object":{"metadata":{"resourceVersion":"5"}}}\n']))) {
      events.push(e);
    }
    expect(events).toEqual([
      { type: 'ADDED', object: { metadata: { name: 'a' } } },
      { type: 'BOOKMARK', object: { metadata: { resourceVersion: '5' } } },
    ]);
    const bad = async () => {
      for await (const _ of readWatchEvents(chunks(['{"type":"ADDED"}\n', 'not json\n']))) void _;
    };
    await expect(bad()).rejects.toThrow();
  });
});

describe('retryOnConflict', () => {
  it('re-runs on Conflict until it succeeds, and gives up after the steps', async () => {
    const { retryOnConflict } = await import('../../src/client/retry.ts');
    let n = 0;
    const result = await retryOnConflict(() => {
      n++;
      return n < 3 ? Promise.reject(new ConflictError(409, 'Conflict', 'modified', undefined, 'PUT x')) : Promise.resolve('ok');
    }, { delayMs: 1 });
    expect(result).toBe('ok');
    expect(n).toBe(3);
    let m = 0;
    const err = await retryOnConflict(() => {
      m++;
      return Promise.reject(new ConflictError(409, 'Conflict', 'modified', undefined, 'PUT x'));
    }, { delayMs: 1, steps: 4 }).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    expect(m).toBe(4);
    const other = await retryOnConflict(() => Promise.reject(new NotFoundError(404, 'NotFound', 'gone', undefined, 'GET x'))).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(NotFoundError);
  });
});
