// Writes that race carry a precondition, a lost race requeues without failing
// a condition, and the apiserver's Retry-After survives the executor to reach the queue's backoff.
import { describe, expect, it } from 'vitest';
import { ApiError, ConflictError, FakeClock, ScaleExpectations, retryAfterMs, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { PlannedAction } from '../../src/core/plan.ts';
import { planPvcCleanup } from '../../src/core/scale/scale-plan.ts';
import { executePlan } from '../../src/reconciler/executor.ts';
import { passError } from '../../src/reconciler/pass-error.ts';
import { executionContext, fakeApi } from './fake-api.ts';
import { NOW, cloneSet, pod, pvc } from './fixtures.ts';

const expectations = () => new ScaleExpectations({ controller: 'cloneset', clock: new FakeClock(NOW) });

describe('pod delete', () => {
  const cached = pod({ name: 'cs-a' });
  cached.metadata!.uid = 'uid-a';
  const del: PlannedAction = { kind: 'deletePod', name: 'cs-a', reason: 'ScaleIn', withPvcs: [], step: 'scale' };
  const podsByName = new Map([['cs-a', cached as unknown as KubeObject]]);

  it('is conditional on the uid of the pod the plan chose', async () => {
    const api = fakeApi();
    await executePlan([del], executionContext(api, expectations(), { podsByName }));
    expect(api.calls).toEqual([expect.objectContaining({ verb: 'delete', name: 'cs-a', options: expect.objectContaining({ preconditions: { uid: 'uid-a' } }) })]);
  });

  it('a pod of that name that is not the one planned (409) is a lost race: requeue, no failure, no FailedDelete', async () => {
    const exp = expectations();
    const api = fakeApi((call) => (call.verb === 'delete' ? Promise.reject(new ConflictError(409, 'Conflict', 'Precondition failed: UID in precondition: uid-a, UID in object meta: uid-b', undefined, 'DELETE pods/cs-a')) : undefined));
    const result = await executePlan([del], executionContext(api, exp, { podsByName }));
    expect(result.failures).toEqual([]);
    expect(result.conflicts.map((c) => c.message)).toEqual([expect.stringContaining('cs-a')]);
    expect(api.events).toEqual([]);
    expect(exp.satisfied('ns/cs')).toBe(true);
  });
});

describe('PVC re-own (disablePVCReuse)', () => {
  const cs = cloneSet({ scaleStrategy: { disablePVCReuse: true } });
  const dead = pod({ id: 'ddddd', phase: 'Failed' });
  dead.metadata!.uid = 'dead-uid';
  const claim = pvc('b', 'ddddd');
  const other = { apiVersion: 'example.io/v1', kind: 'Backup', name: 'nightly', uid: 'backup-uid' };
  claim.metadata!.ownerReferences = [other, ...claim.metadata!.ownerReferences!];

  it('replaces only the CloneSet entry, tested first, and keeps every other owner', async () => {
    const { actions } = planPvcCleanup({ cs, allPods: [dead], pvcs: [claim] });
    const api = fakeApi();
    await executePlan(
      actions.map((a) => ({ ...a, step: 'cleanup' as const })),
      executionContext(api, expectations(), { cs: cs as never }),
    );
    const podRef = { apiVersion: 'v1', kind: 'Pod', name: dead.metadata!.name, uid: 'dead-uid', controller: true, blockOwnerDeletion: true };
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]).toMatchObject({ resource: 'persistentvolumeclaims', verb: 'patch', name: 'b' });
    expect(api.calls[0]!.body).toEqual({
      type: 'json',
      body: [
        { op: 'test', path: '/metadata/ownerReferences/1', value: claim.metadata!.ownerReferences![1] },
        { op: 'replace', path: '/metadata/ownerReferences/1', value: podRef },
      ],
    });
  });
});

describe('a JSON patch whose test failed (a conflict)', () => {
  it('requeues without a failure, so FailedScale does not flap', async () => {
    const cs = cloneSet({ scaleStrategy: { podsToDelete: ['gone'] } });
    const api = fakeApi((call) => (call.verb === 'patch' ? Promise.reject(new ConflictError(409, 'Conflict', 'the tested value of /spec/scaleStrategy/podsToDelete is no longer current', undefined, 'PATCH clonesets/cs')) : undefined));
    const result = await executePlan([{ kind: 'updatePodsToDelete', podsToDelete: [], step: 'cleanup' }], executionContext(api, expectations(), { cs: cs as never }));
    expect(result.failures).toEqual([]);
    expect(result.conflicts).toHaveLength(1);
  });
});

describe('Retry-After of a failed pod or PVC write', () => {
  const unavailable = () => new ApiError(503, 'ServiceUnavailable', 'etcd leader changed', { retryAfterSeconds: 5 }, 'PATCH x', { statusBody: true });
  const throttled = () => new ApiError(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 3 }, 'POST x');
  it.each<[string, PlannedAction, (verb: string) => boolean]>([
    ['a pod patch (503)', { kind: 'patchPod', name: 'cs-a', reason: 'Lifecycle', labels: { a: 'b' }, step: 'update' }, (v) => v === 'patch'],
    ['a PVC delete (503)', { kind: 'deletePvc', name: 'data-cs-a', reason: 'PVCReuseDisabled', step: 'cleanup' }, (v) => v === 'delete'],
  ])('%s reaches the pass error the queue backs off by', async (_name, action, refuse) => {
    const api = fakeApi((call) => (refuse(call.verb) ? Promise.reject(unavailable()) : undefined));
    const result = await executePlan([action], executionContext(api, expectations()));
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]!.error).toBeInstanceOf(ApiError);
    expect(retryAfterMs(passError([], result.failures))).toBe(5_000);
  });

  it('a refused create keeps its error too; the longest Retry-After of the pass wins', async () => {
    const api = fakeApi((call) => (call.verb === 'create' ? Promise.reject(throttled()) : call.verb === 'patch' ? Promise.reject(unavailable()) : undefined));
    const { planReconcile } = await import('../../src/core/reconcile-plan.ts');
    const plan = planReconcile({ cs: cloneSet({ replicas: 1 }), pods: [], pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: () => 0.5 });
    const create = plan.actions.find((a) => a.kind === 'createPod')!;
    const patch: PlannedAction = { kind: 'patchPod', name: 'cs-a', reason: 'Lifecycle', labels: { a: 'b' }, step: 'update' };
    const result = await executePlan([patch, create], executionContext(api, expectations()));
    expect(result.failures.map((f) => f.error)).toEqual([expect.any(ApiError), expect.any(ApiError)]);
    expect(retryAfterMs(passError([], result.failures))).toBe(5_000);
    const onlyCreate = await executePlan([create], executionContext(api, expectations()));
    expect(retryAfterMs(passError([], onlyCreate.failures))).toBe(3_000);
  });

  it('the pass error names every failure and planner error, and is undefined when nothing failed', () => {
    const err = passError([{ condition: 'FailedUpdate', message: 'bad partition' }], [{ step: 'scale', message: 'create pod x: quota', error: new Error('quota') }]);
    expect(err?.message).toBe('bad partition; FailedScale: create pod x: quota');
    expect(passError([], [])).toBeUndefined();
  });
});

describe("a pod's actions after one of them failed", () => {
  const mark: PlannedAction = { kind: 'patchPod', name: 'cs-a', reason: 'RecreateUpdate', labels: { 'apps.kruise.io/specified-delete': 'true' }, step: 'update' };
  const del: PlannedAction = { kind: 'deletePod', name: 'cs-a', reason: 'SpecifiedDelete', withPvcs: [], step: 'scale' };
  const otherDel: PlannedAction = { kind: 'deletePod', name: 'cs-b', reason: 'SpecifiedDelete', withPvcs: [], step: 'scale' };

  it.each([
    ['failed', () => new ApiError(500, 'InternalError', 'etcd timeout', undefined, 'PATCH pods/cs-a')],
    ['lost a race', () => new ConflictError(409, 'Conflict', 'the object has been modified', undefined, 'PATCH pods/cs-a')],
  ])('are not run when its mark %s: no delete of an unmarked pod; other pods go on', async (_name, error) => {
    const api = fakeApi((call) => (call.verb === 'patch' && call.name === 'cs-a' ? Promise.reject(error()) : undefined));
    const exp = expectations();
    await executePlan([mark, { ...mark, name: 'cs-b' }, del, otherDel], executionContext(api, exp));
    expect(api.calls.map((c) => `${c.verb} ${c.name}`)).toEqual(['patch cs-a', 'patch cs-b', 'delete cs-b']);
    expect(exp.pending('ns/cs')).toEqual(expect.objectContaining({ delete: ['cs-b'] }));
  });
});

describe('writes to different pods', () => {
  /** 100 pods' first writes (a rollout batch: maxUnavailable 20% of 500), answered only when the test says. */
  async function batchOf100(maxConcurrentRequests: number): Promise<number> {
    const release: (() => void)[] = [];
    let inFlight = 0;
    let most = 0;
    const api = fakeApi(() => {
      inFlight++;
      most = Math.max(most, inFlight);
      return new Promise((resolve) =>
        release.push(() => {
          inFlight--;
          resolve({ metadata: { resourceVersion: '1' } });
        }),
      );
    }, maxConcurrentRequests);
    const actions: PlannedAction[] = Array.from({ length: 100 }, (_, i) => ({ kind: 'patchPod', name: `cs-${i}`, reason: 'RecreateUpdate', labels: { 'apps.kruise.io/specified-delete': 'true' }, step: 'update' }));
    const done = executePlan(actions, executionContext(api, expectations()));
    // Let every write that may start do so, then answer them until none is left.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    const atOnce = most;
    while (release.length > 0) {
      release.splice(0).forEach((answer) => answer());
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    }
    await done;
    expect(api.calls).toHaveLength(100);
    expect(most).toBe(atOnce);
    return atOnce;
  }

  it('a rollout batch has every first write in flight at once when the client sends them all', async () => {
    expect(await batchOf100(Number.POSITIVE_INFINITY)).toBe(100);
  });

  it('keeps no more writes in flight than the client sends at once: the rest wait here, not in its queue with their timeouts running', async () => {
    expect(await batchOf100(32)).toBe(32);
  });
});
