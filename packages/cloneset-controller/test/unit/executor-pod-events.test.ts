// Events the plan records on a pod (a decision about that pod, shown by `kubectl describe pod`),
// and the lifecycle write that follows it: an undo of an operation whose type label was changed.
import { describe, expect, it } from 'vitest';
import { FakeClock, ScaleExpectations, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { PlannedAction } from '../../src/core/plan.ts';
import { executePlan } from '../../src/reconciler/executor.ts';
import { executionContext, fakeApi } from './fake-api.ts';
import { NOW } from './fixtures.ts';

const RECORD = 'podopslifecycle.cloneset-suite.io/cloneset-operation';

describe('executePlan: pod Events', () => {
  it('records the Event on the pod, then writes the undo (dropping the record of the begin)', async () => {
    const cached = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'x',
        namespace: 'ns',
        resourceVersion: '7',
        labels: { 'operating.podopslifecycle.kusionstack.io/cloneset': '1', 'operation-type.podopslifecycle.kusionstack.io/cloneset': 'scale-in' },
        annotations: { [RECORD]: JSON.stringify({ type: 'update', deletesPod: false, operating: '1' }) },
      },
    } as KubeObject;
    const actions: PlannedAction[] = [
      { kind: 'podEvent', name: 'x', type: 'Warning', reason: 'OperationTypeMismatch', message: 'label changed', step: 'scale' },
      { kind: 'undoOperation', name: 'x', type: 'scale-in', step: 'scale' },
    ];
    const api = fakeApi();
    const expectations = new ScaleExpectations({ controller: 'cloneset', clock: new FakeClock(NOW) });
    const result = await executePlan(actions, executionContext(api, expectations, { podsByName: new Map([['x', cached]]) }));
    expect(result.failures).toEqual([]);
    expect(api.events).toEqual([{ type: 'Warning', reason: 'OperationTypeMismatch', message: 'label changed', regarding: 'Pod/x' }]);
    const patch = api.calls.find((c) => c.verb === 'patch');
    expect(JSON.stringify(patch?.body)).toContain('undo-operation-type.podopslifecycle.kusionstack.io~1cloneset');
    expect(JSON.stringify(patch?.body)).toContain(`"op":"remove","path":"/metadata/annotations/podopslifecycle.cloneset-suite.io~1cloneset-operation"`);
  });
});
