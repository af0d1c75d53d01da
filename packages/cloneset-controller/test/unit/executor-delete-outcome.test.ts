// A pod or PVC delete whose outcome is unknown (no answer, a proxy's answer, etcd's "request timed
// out") may have landed, as a create may: its expectation stays until the cache shows the object go
// or the expectation window passes, so no pass plans from a cache that still lists it (a claim
// still listed would have its instance id reused by a replacement pod that then never schedules).
import { ApiError, ControllerStoppedError, FakeClock, ScaleExpectations, type KubeObject, type Logger } from '@cloneset-suite/kube-runtime';
import { describe, expect, it } from 'vitest';
import type { PlannedAction } from '../../src/core/plan.ts';
import { claimExpectation } from '../../src/reconciler/actions/claim-expectation.ts';
import type { CloneSetCaches } from '../../src/reconciler/caches.ts';
import { executePlan } from '../../src/reconciler/executor.ts';
import { executionContext, fakeApi, type FakeCall } from './fake-api.ts';
import { NOW, cloneSet, pvc } from './fixtures.ts';
import { listCache, passContext, reconcilerOverLists } from './list-cache.ts';

const KEY = 'ns/cs';
const WINDOW_MS = 5 * 60_000;
const REQ = 'DELETE /api/v1/namespaces/ns/pods/cs-a';
const expectations = (clock = new FakeClock(NOW)) => new ScaleExpectations({ controller: 'cloneset', clock, timeoutMs: WINDOW_MS });
const deletePod: PlannedAction = { kind: 'deletePod', name: 'cs-a', reason: 'ScaleIn', withPvcs: ['data-cs-a'], step: 'scale' };
const cleanup: PlannedAction = { kind: 'deletePvc', name: 'data-cs-b', reason: 'PVCReuseDisabled', step: 'cleanup' };

const unknownOutcomes: [string, () => Error][] = [
  ['a 502 from a proxy', () => new ApiError(502, 'Unknown', 'HTTP 502', undefined, REQ)],
  ['a 503 without a Status body (a load balancer)', () => new ApiError(503, 'ServiceUnavailable', '<html>503</html>', undefined, REQ)],
  ['a 504 from the apiserver', () => new ApiError(504, 'Timeout', 'request did not complete within requested timeout', undefined, REQ, { statusBody: true })],
  ['the client timeout', () => new ApiError(0, 'Timeout', 'no answer within 60000 ms', undefined, REQ)],
  [
    'a connection reset after the request left',
    () => new ApiError(0, 'TransportError', 'fetch failed', undefined, REQ, { cause: new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }) }),
  ],
  ['a 500 without a Status body', () => new ApiError(500, 'InternalError', '<html>500</html>', undefined, REQ)],
  ["etcd's request timed out (the apiserver's 500)", () => new ApiError(500, 'InternalError', 'etcdserver: request timed out', undefined, REQ, { statusBody: true })],
];

/** Every call to `resource` fails with `error`; the rest are answered by the store. */
const failing = (resource: string, error: () => Error) => (call: FakeCall) => (call.resource === resource && call.verb === 'delete' ? Promise.reject(error()) : undefined);

describe('a pod delete with an unknown outcome', () => {
  it.each(unknownOutcomes)('%s keeps its expectation, is no failure, and leaves its claims for later', async (_name, error) => {
    const exp = expectations();
    const api = fakeApi(failing('pods', error));
    const result = await executePlan([deletePod], executionContext(api, exp));
    expect(exp.pending(KEY).delete).toEqual(['cs-a']);
    expect(result.failures).toEqual([]);
    expect(api.events.map((e) => `${e.type} ${e.reason}`)).toEqual(['Warning DeletePodOutcomeUnknown']);
    expect(api.events[0]!.message).toContain('cs-a');
    // The pod may still run on its claim: no claim delete is sent.
    expect(api.calls.map((c) => `${c.verb} ${c.resource}`)).toEqual(['delete pods']);
    exp.observe(KEY, 'delete', 'cs-a');
    expect(exp.satisfied(KEY)).toBe(true);
  });

  it('one that never landed frees the CloneSet once the expectation window passes', async () => {
    const clock = new FakeClock(NOW);
    const exp = expectations(clock);
    await executePlan([deletePod], executionContext(fakeApi(failing('pods', unknownOutcomes[0]![1])), exp));
    expect(exp.satisfied(KEY)).toBe(false);
    await clock.advance(WINDOW_MS);
    expect(exp.satisfied(KEY)).toBe(true);
  });

  it('one cut by the manager stopping: an info line, no Event, the expectation kept', async () => {
    const exp = expectations();
    const stopping = new AbortController();
    const api = fakeApi((call) => {
      if (call.verb !== 'delete') return undefined;
      stopping.abort(new ControllerStoppedError('cloneset'));
      return Promise.reject(new ApiError(0, 'TransportError', 'This operation was aborted', undefined, REQ));
    });
    const levels: string[] = [];
    const capture = (level: string) => () => levels.push(level);
    const logger = { debug: capture('debug'), info: capture('info'), warn: capture('warn'), error: capture('error') } as unknown as Logger;
    const result = await executePlan([deletePod], executionContext(api, exp, { signal: stopping.signal, logger }));
    expect(api.events).toEqual([]);
    expect(result.failures).toEqual([]);
    expect(levels).toEqual(['info']);
    expect(exp.pending(KEY).delete).toEqual(['cs-a']);
  });

  it("the apiserver's own refusal (a 500 with a Status body, not a timeout) is a FailedDelete and drops the expectation", async () => {
    const exp = expectations();
    const api = fakeApi(failing('pods', () => new ApiError(500, 'InternalError', 'Internal error occurred: quota evaluation failed', undefined, REQ, { statusBody: true })));
    const result = await executePlan([deletePod], executionContext(api, exp));
    expect(exp.satisfied(KEY)).toBe(true);
    expect(result.failures).toHaveLength(1);
    expect(api.events.map((e) => e.reason)).toEqual(['FailedDelete']);
  });
});

describe('a PVC delete with an unknown outcome', () => {
  it.each(unknownOutcomes)('%s keeps its expectation (with its pod, and in the clean-up), and is no failure', async (_name, error) => {
    const exp = expectations();
    const api = fakeApi(failing('persistentvolumeclaims', error));
    const result = await executePlan([deletePod, cleanup], executionContext(api, exp));
    // The pod went; both claims may have gone: a pass planned now could reuse their instance ids.
    expect([...exp.pending(KEY).delete].sort()).toEqual(['cs-a', claimExpectation('data-cs-a'), claimExpectation('data-cs-b')].sort());
    expect(result.failures).toEqual([]);
    expect(api.events.map((e) => `${e.type} ${e.reason}`)).toEqual(['Normal SuccessfulDelete', 'Warning DeletePVCOutcomeUnknown', 'Warning DeletePVCOutcomeUnknown']);
    expect(api.events.slice(1).map((e) => e.message)).toEqual([expect.stringContaining('data-cs-a'), expect.stringContaining('data-cs-b')]);
  });
});

describe('the next pass after a claim delete with an unknown outcome', () => {
  const template = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
  const cs = { ...cloneSet({ replicas: 1, volumeClaimTemplates: [template] }), metadata: { ...cloneSet().metadata, resourceVersion: '1' } };

  /** One pass over caches with no pod and the claim `data-cs-i0` still listed as live. */
  async function passWithClaimListed(exp: ScaleExpectations): Promise<FakeCall[]> {
    const api = fakeApi();
    const caches = {
      cloneSets: listCache([cs as KubeObject]),
      pods: listCache([]),
      pvcs: listCache([pvc('data-cs-i0', 'i0') as KubeObject]),
      revisions: listCache([]),
      nodes: listCache([]),
    } as unknown as CloneSetCaches;
    const { reconcile } = reconcilerOverLists({ caches, client: api.client, recorder: api.recorder, expectations: exp });
    await reconcile(caches.cloneSets.getByKey(KEY)!, passContext(KEY));
    return api.calls;
  }

  it('creates no pod on the claim (its instance id) until the cache shows the claim go', async () => {
    const exp = expectations();
    const scaleIn: PlannedAction = { kind: 'deletePod', name: 'cs-i0', reason: 'ScaleIn', withPvcs: ['data-cs-i0'], step: 'scale' };
    await executePlan([scaleIn], executionContext(fakeApi(failing('persistentvolumeclaims', unknownOutcomes[2]![1])), exp));
    exp.observe(KEY, 'delete', 'cs-i0'); // the informer saw the pod go; the claim is still listed
    expect(await passWithClaimListed(exp)).toEqual([]);
    // Once the claim's delete is seen, the pass plans from the cache again (here, one that still
    // lists the claim: the replacement would take its id, which is what the wait prevents).
    exp.observe(KEY, 'delete', claimExpectation('data-cs-i0'));
    const creates = (await passWithClaimListed(exp)).filter((c) => c.resource === 'pods' && c.verb === 'create');
    expect(creates.map((c) => c.name)).toEqual(['cs-i0']);
  });
});
