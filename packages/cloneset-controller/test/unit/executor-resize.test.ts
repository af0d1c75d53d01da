// The shell's half of an in-place resize: one write to the pod's resize subresource, the
// containers' cpu/memory by name, and a Warning naming the pod when the apiserver refuses it.
import { describe, expect, it } from 'vitest';
import { ApiError, FakeClock, ScaleExpectations } from '@cloneset-suite/kube-runtime';
import type { PlannedAction } from '../../src/core/plan.ts';
import { executePlan } from '../../src/reconciler/executor.ts';
import { executionContext, fakeApi } from './fake-api.ts';
import { NOW } from './fixtures.ts';

const resize: PlannedAction = { kind: 'resizePod', name: 'x', containers: { main: { requests: { cpu: '200m' }, limits: { cpu: '400m' } } }, step: 'update' };
const expectations = () => new ScaleExpectations({ controller: 'cloneset', clock: new FakeClock(NOW) });

describe('executePlan: resizePod', () => {
  it('patches the pods/resize subresource with a strategic merge of the containers by name', async () => {
    const api = fakeApi();
    const result = await executePlan([resize], executionContext(api, expectations()));
    expect(result.failures).toEqual([]);
    expect(api.calls).toEqual([
      expect.objectContaining({
        resource: 'pods',
        verb: 'patchSubresource',
        subresource: 'resize',
        name: 'x',
        body: { type: 'strategic', body: { spec: { containers: [{ name: 'main', resources: { requests: { cpu: '200m' }, limits: { cpu: '400m' } } }] } } },
      }),
    ]);
  });

  it('a refusal fails the update step, records FailedUpdatePodInPlace, and ends the pod\'s writes of the plan', async () => {
    const refused = new ApiError(403, 'Forbidden', "node didn't have enough allocatable resources: cpu", undefined, 'PATCH pods/x/resize');
    const api = fakeApi((call) => (call.verb === 'patchSubresource' ? Promise.reject(refused) : undefined));
    const after: PlannedAction = { kind: 'inPlaceUpdate', name: 'x', revision: 'cs-new', labels: {}, annotations: {}, images: {}, gracePeriodSeconds: 0, step: 'update' };
    const result = await executePlan([resize, after], executionContext(api, expectations()));
    expect(result.failures).toEqual([expect.objectContaining({ step: 'update', message: expect.stringContaining("resizePod x: node didn't have enough allocatable resources") })]);
    expect(api.events).toEqual([{ type: 'Warning', reason: 'FailedUpdatePodInPlace', message: expect.stringMatching(/^failed to resize pod x in-place: /), regarding: 'CloneSet/cs' }]);
    expect(api.calls.map((c) => c.verb)).toEqual(['patchSubresource']);
  });
});
