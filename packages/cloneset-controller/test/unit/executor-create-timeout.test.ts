// A pod create whose answer never came (client timeout, the reconcile's deadline,
// a server-side timeout, a proxy's 502 or bare 503) may have landed. Its expectation stays until
// the cache shows the pod or the expectation window passes, so the next pass waits instead of
// creating under a new id.
import { describe, expect, it } from 'vitest';
import { AlreadyExistsError, ApiError, ControllerStoppedError, FakeClock, ScaleExpectations, type KubeObject, type Logger } from '@cloneset-suite/kube-runtime';
import type { PlannedAction } from '../../src/core/plan.ts';
import { planReconcile } from '../../src/core/reconcile-plan.ts';
import { observeCachedCreates } from '../../src/reconciler/cached-creates.ts';
import { executePlan } from '../../src/reconciler/executor.ts';
import { executionContext, fakeApi, type FakeCall } from './fake-api.ts';
import { NOW, cloneSet, seededRandom } from './fixtures.ts';

const WINDOW_MS = 5 * 60_000;

function planCreates(replicas: number): PlannedAction[] {
  const plan = planReconcile({ cs: cloneSet({ replicas }), pods: [], pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(7) });
  return plan.actions.filter((a) => a.kind === 'createPod');
}

const clientTimeout = () => new ApiError(0, 'Timeout', 'no answer within 60000 ms (POST /api/v1/namespaces/ns/pods)', undefined, 'POST /api/v1/namespaces/ns/pods');
/** undici's fetch error when the connection closes after the body went out. */
const socketClosed = () =>
  new ApiError(0, 'TransportError', 'fetch failed: other side closed', undefined, 'POST /api/v1/namespaces/ns/pods', {
    cause: new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }),
  });
const connectionRefused = () =>
  new ApiError(0, 'TransportError', 'fetch failed: connect ECONNREFUSED', undefined, 'POST /api/v1/namespaces/ns/pods', {
    cause: new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }) }),
  });
const serverTimeout = () => new ApiError(504, 'Timeout', 'Timeout: request did not complete within requested timeout', undefined, 'POST /api/v1/namespaces/ns/pods');
/** What the client makes of a proxy's bare 502 or 503 (no Kubernetes Status body). */
const badGateway = () => new ApiError(502, 'Unknown', 'HTTP 502 (POST /api/v1/namespaces/ns/pods)', undefined, 'POST /api/v1/namespaces/ns/pods');
const proxyUnavailable = () => new ApiError(503, 'ServiceUnavailable', '<html>503 Service Unavailable</html>', undefined, 'POST /api/v1/namespaces/ns/pods');

/** The pod is stored (the POST landed), then the answer is lost. */
function landsThenTimesOut(error: () => Error) {
  return (call: FakeCall, stored: Map<string, KubeObject>) => {
    if (call.resource !== 'pods' || call.verb !== 'create') return undefined;
    stored.set(`pods/${call.name}`, call.body as KubeObject);
    return Promise.reject(error());
  };
}

describe('executePlan: a create with an unknown outcome', () => {
  it.each([
    ['the client timeout', clientTimeout],
    ['a server-side timeout (504)', serverTimeout],
    ['a socket closed after the body was sent (UND_ERR_SOCKET)', socketClosed],
    ['a 502 from a proxy in front of the apiserver', badGateway],
    ['a 503 without a Status body (a load balancer)', proxyUnavailable],
  ])('%s keeps the expectation until the cache shows the pod', async (_name, error) => {
    const clock = new FakeClock(NOW);
    const expectations = new ScaleExpectations({ controller: 'cloneset', clock, timeoutMs: WINDOW_MS });
    const api = fakeApi(landsThenTimesOut(error));
    const [create] = planCreates(1);
    const result = await executePlan([create!], executionContext(api, expectations));

    // The next pass would plan from a cache without the pod: it must wait instead.
    expect(expectations.satisfied('ns/cs')).toBe(false);
    expect(expectations.pending('ns/cs').create).toEqual([api.calls[0]!.name]);
    // Not a failure (no FailedCreate, no FailedScale): said as a Warning that names the pod.
    expect(result.failures).toEqual([]);
    expect(api.events.map((e) => `${e.type} ${e.reason}`)).toEqual(['Warning CreatePodOutcomeUnknown']);
    expect(api.events[0]!.message).toContain(api.calls[0]!.name);

    // The informer sees the pod: the expectation is met and planning resumes.
    expectations.observe('ns/cs', 'create', api.calls[0]!.name);
    expect(expectations.satisfied('ns/cs')).toBe(true);
  });

  it('a create that never landed frees the CloneSet once the expectation window passes', async () => {
    const clock = new FakeClock(NOW);
    const expectations = new ScaleExpectations({ controller: 'cloneset', clock, timeoutMs: WINDOW_MS });
    const api = fakeApi((call) => (call.verb === 'create' ? Promise.reject(clientTimeout()) : undefined));
    await executePlan(planCreates(1), executionContext(api, expectations));
    expect(expectations.satisfied('ns/cs')).toBe(false);
    await clock.advance(WINDOW_MS);
    expect(expectations.satisfied('ns/cs')).toBe(true);
  });

  it('a create cut short by the reconcile deadline is unknown too', async () => {
    const clock = new FakeClock(NOW);
    const expectations = new ScaleExpectations({ controller: 'cloneset', clock, timeoutMs: WINDOW_MS });
    const deadline = new AbortController();
    const api = fakeApi((call, stored) => {
      if (call.verb !== 'create') return undefined;
      stored.set(`pods/${call.name}`, call.body as KubeObject);
      deadline.abort(new Error('reconcile deadline'));
      return Promise.reject(new ApiError(0, 'TransportError', 'This operation was aborted', undefined, 'POST /api/v1/namespaces/ns/pods'));
    });
    await executePlan(planCreates(1), executionContext(api, expectations, { signal: deadline.signal }));
    expect(expectations.satisfied('ns/cs')).toBe(false);
  });

  it('stops the slow start: no later batch is sent while a create is unknown', async () => {
    const expectations = new ScaleExpectations({ controller: 'cloneset', clock: new FakeClock(NOW), timeoutMs: WINDOW_MS });
    const api = fakeApi(landsThenTimesOut(clientTimeout));
    await executePlan(planCreates(3), executionContext(api, expectations));
    expect(api.calls.filter((c) => c.verb === 'create')).toHaveLength(1);
  });

  it('a connection refused (the POST never left) is a failure and drops its expectation', async () => {
    const expectations = new ScaleExpectations({ controller: 'cloneset', clock: new FakeClock(NOW), timeoutMs: WINDOW_MS });
    const api = fakeApi((call) => (call.verb === 'create' ? Promise.reject(connectionRefused()) : undefined));
    const result = await executePlan(planCreates(1), executionContext(api, expectations));
    expect(expectations.satisfied('ns/cs')).toBe(true);
    expect(result.failures).toHaveLength(1);
    expect(api.events.map((e) => e.reason)).toEqual(['FailedCreate']);
  });

  it('a create cut by the manager stopping: no Warning Event, an info line, the expectation kept', async () => {
    const expectations = new ScaleExpectations({ controller: 'cloneset', clock: new FakeClock(NOW), timeoutMs: WINDOW_MS });
    const stopping = new AbortController();
    const api = fakeApi((call) => {
      if (call.verb !== 'create') return undefined;
      stopping.abort(new ControllerStoppedError('cloneset'));
      return Promise.reject(new ApiError(0, 'TransportError', 'This operation was aborted', undefined, 'POST /api/v1/namespaces/ns/pods'));
    });
    const lines: { level: string; msg: string }[] = [];
    const capture = (level: string) => (_obj: unknown, msg: string) => lines.push({ level, msg });
    const logger = { debug: capture('debug'), info: capture('info'), warn: capture('warn'), error: capture('error') } as unknown as Logger;
    const result = await executePlan(planCreates(1), executionContext(api, expectations, { signal: stopping.signal, logger }));
    expect(api.events).toEqual([]);
    expect(result.failures).toEqual([]);
    expect(lines.map((l) => l.level)).toEqual(['info']);
    expect(lines[0]!.msg).toContain('shutdown');
    expect(expectations.satisfied('ns/cs')).toBe(false);
  });

  it("the apiserver's own 503 (a Status body) is a failure and drops its expectation", async () => {
    const expectations = new ScaleExpectations({ controller: 'cloneset', clock: new FakeClock(NOW), timeoutMs: WINDOW_MS });
    const unavailable = new ApiError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request', undefined, 'POST pods', { statusBody: true });
    const api = fakeApi((call) => (call.verb === 'create' ? Promise.reject(unavailable) : undefined));
    const result = await executePlan(planCreates(1), executionContext(api, expectations));
    expect(expectations.satisfied('ns/cs')).toBe(true);
    expect(result.failures).toHaveLength(1);
  });

  it('AlreadyExists (the pod is there, the cache does not show it yet) keeps the expectation until the cache catches up', async () => {
    const expectations = new ScaleExpectations({ controller: 'cloneset', clock: new FakeClock(NOW), timeoutMs: WINDOW_MS });
    const api = fakeApi((call, stored) => {
      if (call.verb !== 'create') return undefined;
      stored.set(`pods/${call.name}`, call.body as KubeObject);
      return Promise.reject(new AlreadyExistsError(409, 'AlreadyExists', `pods "${call.name}" already exists`, undefined, 'POST pods', { statusBody: true }));
    });
    const result = await executePlan(planCreates(1), executionContext(api, expectations));
    const name = api.calls[0]!.name;
    // A pass planned now would not see the pod and could create another one under a new id.
    expect(expectations.pending('ns/cs').create).toEqual([name]);
    expect(result.failures).toHaveLength(1);
    expect(api.events.map((e) => e.reason)).toEqual(['FailedCreate']);
    // The cache shows a pod of that name, ours or someone else's (no add event of ours for it): met.
    observeCachedCreates(expectations, 'ns/cs', (n) => n !== name);
    expect(expectations.satisfied('ns/cs')).toBe(false);
    observeCachedCreates(expectations, 'ns/cs', (n) => api.stored.has(`pods/${n}`));
    expect(expectations.satisfied('ns/cs')).toBe(true);
  });

  it('a refused create (the apiserver answered) is still a failure and drops its expectation', async () => {
    const expectations = new ScaleExpectations({ controller: 'cloneset', clock: new FakeClock(NOW), timeoutMs: WINDOW_MS });
    const api = fakeApi((call) => (call.verb === 'create' ? Promise.reject(new ApiError(403, 'Forbidden', 'exceeded quota', undefined, 'POST pods')) : undefined));
    const result = await executePlan(planCreates(1), executionContext(api, expectations));
    expect(expectations.satisfied('ns/cs')).toBe(true);
    expect(result.failures).toHaveLength(1);
    expect(api.events.map((e) => e.reason)).toEqual(['FailedCreate']);
  });
});
