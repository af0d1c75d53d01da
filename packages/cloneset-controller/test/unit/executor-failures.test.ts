// A failed action fails the condition of the step that planned it (OpenKruise's conditions), whatever its kind.
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { ControllerStoppedError, FakeClock, type EventRecorder, type KubeClient, type Logger, type ScaleExpectations } from '@cloneset-suite/kube-runtime';
import { statePatch } from '../../src/core/lifecycle/lifecycle.ts';
import { failureCondition, type PlannedAction } from '../../src/core/plan.ts';
import { setPodConditions } from '../../src/core/pods/pod-conditions.ts';
import { executePlan, type ExecutionContext } from '../../src/reconciler/executor.ts';
import { NOW, cloneSet, pod } from './fixtures.ts';

/** Every write is refused, as an apiserver answering 500 would. */
function refusingContext(): ExecutionContext {
  const refuse = () => Promise.reject(new Error('apiserver says no'));
  const client = { resource: () => ({ patch: refuse, patchStatus: refuse, create: refuse, delete: refuse, get: refuse }), maxConcurrentRequests: Number.POSITIVE_INFINITY } as unknown as KubeClient;
  const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} } as unknown as Logger;
  return {
    client,
    clock: new FakeClock(NOW),
    recorder: { event: () => {} } as unknown as EventRecorder,
    expectations: { expect: () => {}, observe: () => {} } as unknown as ScaleExpectations,
    logger: silent,
    key: 'ns/cs',
    cs: cloneSet({ replicas: 1 }) as ExecutionContext['cs'],
    podsByName: new Map(),
    signal: new AbortController().signal,
  };
}

describe('executePlan: failure to condition, per step', () => {
  const p: V1Pod = pod({ name: 'cs-a', state: 'PreparingUpdate' });
  it.each<[string, PlannedAction, 'FailedScale' | 'FailedUpdate']>([
    // A lifecycle statePatch planned by the Update step (refresh moving Updating -> Normal).
    ['a lifecycle patch from the update step', { ...statePatch(p, 'Normal', NOW), step: 'update' }, 'FailedUpdate'],
    // A markPodNotReady condition write planned by the Scale step (preDelete hook).
    ['a condition write from the scale step', { ...setPodConditions(p, [{ type: 'KruisePodReady', status: 'False' }], NOW), step: 'scale' }, 'FailedScale'],
    ['a condition write from the update step', { ...setPodConditions(p, [{ type: 'InPlaceUpdateReady', status: 'False' }], NOW), step: 'update' }, 'FailedUpdate'],
    ['a lifecycle patch from the scale step', { ...statePatch(p, 'PreparingDelete', NOW), step: 'scale' }, 'FailedScale'],
  ])('%s', async (_name, action, condition) => {
    const result = await executePlan([action], refusingContext());
    expect(result.failures).toHaveLength(1);
    expect(result.failures.map((f) => failureCondition(f.step))).toEqual([condition]);
  });
});

describe('executePlan: a write cut short by the manager stopping', () => {
  it('is no failure and no warning: the next leader replans', async () => {
    const stopping = new AbortController();
    // The stop lands while the write is on the wire.
    const stopped = new ControllerStoppedError('cloneset');
    const cut = () => {
      stopping.abort(stopped);
      return Promise.reject(stopped);
    };
    const logged: string[] = [];
    const ctx: ExecutionContext = {
      ...refusingContext(),
      client: { resource: () => ({ patch: cut, patchStatus: cut, create: cut, delete: cut, get: cut }), maxConcurrentRequests: Number.POSITIVE_INFINITY } as unknown as KubeClient,
      logger: { debug: () => {}, info: () => logged.push('info'), warn: () => logged.push('warn'), error: () => logged.push('error') } as unknown as Logger,
      signal: stopping.signal,
    };
    const p: V1Pod = pod({ name: 'cs-a', state: 'PreparingUpdate' });
    const result = await executePlan([{ ...statePatch(p, 'Normal', NOW), step: 'update' }], ctx);
    expect(result.failures).toEqual([]);
    expect(result.conflicts).toEqual([]);
    expect(logged).toEqual(['info']);
  });
});
