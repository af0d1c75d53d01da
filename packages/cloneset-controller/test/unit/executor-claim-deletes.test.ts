// A PVC the controller deletes stays expected until the PVC cache shows it terminating or gone:
// the long crash run found replacements created, with the old instance id, from a PVC cache that
// still listed the deleted claims as live; the claims then went and the pods never scheduled.
import { describe, expect, it } from 'vitest';
import { ApiError, FakeClock, NotFoundError, ScaleExpectations } from '@cloneset-suite/kube-runtime';
import type { PlannedAction } from '../../src/core/plan.ts';
import { claimExpectation } from '../../src/reconciler/actions/claim-expectation.ts';
import { executePlan } from '../../src/reconciler/executor.ts';
import { executionContext, fakeApi } from './fake-api.ts';
import { NOW } from './fixtures.ts';

const KEY = 'ns/cs';
const expectations = () => new ScaleExpectations({ controller: 'cloneset', clock: new FakeClock(NOW) });
const deletePod: PlannedAction = { kind: 'deletePod', name: 'cs-a', reason: 'ScaleIn', withPvcs: ['data-cs-a', 'logs-cs-a'], step: 'scale' };
const cleanup: PlannedAction = { kind: 'deletePvc', name: 'data-cs-b', reason: 'PVCReuseDisabled', step: 'cleanup' };

describe('claims deleted by the controller', () => {
  it.each([
    ['with their pod', deletePod, ['cs-a', claimExpectation('data-cs-a'), claimExpectation('logs-cs-a')]],
    ['by the disablePVCReuse clean-up', cleanup, [claimExpectation('data-cs-b')]],
  ])('%s are expected until the cache sees them go', async (_, action, pending) => {
    const exp = expectations();
    await executePlan([action], executionContext(fakeApi(), exp));
    expect(exp.satisfied(KEY)).toBe(false);
    expect([...exp.pending(KEY).delete].sort()).toEqual([...pending].sort());
    for (const name of pending) exp.observe(KEY, 'delete', name);
    expect(exp.satisfied(KEY)).toBe(true);
  });

  it('a claim already gone (404) is not waited for, and is no failure', async () => {
    const exp = expectations();
    const api = fakeApi((call) => (call.resource === 'persistentvolumeclaims' ? Promise.reject(new NotFoundError(404, 'NotFound', 'gone', undefined, 'DELETE pvc')) : undefined));
    const result = await executePlan([cleanup], executionContext(api, exp));
    expect(result.failures).toEqual([]);
    expect(api.events).toEqual([]);
    expect(exp.satisfied(KEY)).toBe(true);
  });

  it('a claim delete the apiserver refused is not waited for: the pass fails and the next one replans', async () => {
    const exp = expectations();
    const api = fakeApi((call) => (call.resource === 'persistentvolumeclaims' ? Promise.reject(new ApiError(500, 'InternalError', 'Internal error occurred: etcd cluster is unavailable or misconfigured', undefined, 'DELETE pvc', { statusBody: true })) : undefined));
    const result = await executePlan([cleanup], executionContext(api, exp));
    expect(result.failures.map((f) => f.message)).toEqual([expect.stringContaining('data-cs-b')]);
    expect(api.events.map((e) => e.reason)).toEqual(['FailedDelete']);
    expect(exp.satisfied(KEY)).toBe(true);
  });
});
