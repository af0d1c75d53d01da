import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { hookWaits } from '../../src/core/lifecycle/hook-waits.ts';
import { planReconcile, statusInputFor } from '../../src/core/reconcile-plan.ts';
import { computeStatus } from '../../src/core/status/status.ts';
import type { CloneSetLifecycle } from '../../src/core/types.ts';
import { NOW, cloneSet, ctxFor, onConditions, pod, seededRandom } from './fixtures.ts';
import { isHold } from '../../src/core/wait.ts';
import { waitMessage } from '../../src/core/waits/wait-text.ts';

const withFinalizers = (p: V1Pod, finalizers: string[]): V1Pod => ({ ...p, metadata: { ...p.metadata, finalizers } });
const preDelete: CloneSetLifecycle = { preDelete: { finalizersHandler: ['example.com/drain'], labelsHandler: { 'example.com/hold': 'true' } } };
const inPlace: CloneSetLifecycle = { inPlaceUpdate: { labelsHandler: { 'example.com/warm': 'true' } } };

describe('hookWaits: a pod a lifecycle hook holds is reported as a hold (PodsHeld), naming the hook', () => {
  it.each<[string, CloneSetLifecycle | undefined, V1Pod[], { parts: string[] }[]]>([
    ['no lifecycle: nothing', undefined, [pod({ state: 'PreparingDelete', name: 'cs-a' })], []],
    ['preDelete finalizer holds a PreparingDelete pod', preDelete, [withFinalizers(pod({ state: 'PreparingDelete', name: 'cs-a' }), ['example.com/drain'])], [
      { parts: ['preDelete', 'finalizer example.com/drain', 'cs-a'] },
    ]],
    ['preDelete label holds it', preDelete, [pod({ state: 'PreparingDelete', name: 'cs-b', labels: { 'example.com/hold': 'true' } })], [
      { parts: ['preDelete', 'label example.com/hold=true', 'cs-b'] },
    ]],
    ['a released pre-delete (hook gone) waits for nothing', preDelete, [pod({ state: 'PreparingDelete', name: 'cs-c' })], []],
    ['a hooked pod not in PreparingDelete waits for nothing', preDelete, [pod({ state: 'Normal', name: 'cs-d', labels: { 'example.com/hold': 'true' } })], []],
    ['inPlaceUpdate label holds a PreparingUpdate pod', inPlace, [pod({ state: 'PreparingUpdate', name: 'cs-e', labels: { 'example.com/warm': 'true' } })], [
      { parts: ['inPlaceUpdate', 'label example.com/warm=true', 'cs-e'] },
    ]],
    ['both hooks, several pods: one wait per hook naming every pod', { ...preDelete, ...inPlace }, [
      pod({ state: 'PreparingDelete', name: 'cs-f', labels: { 'example.com/hold': 'true' } }),
      withFinalizers(pod({ state: 'PreparingDelete', name: 'cs-g' }), ['example.com/drain']),
      pod({ state: 'PreparingUpdate', name: 'cs-h', labels: { 'example.com/warm': 'true' } }),
    ], [
      { parts: ['preDelete', 'cs-f', 'cs-g'] },
      { parts: ['inPlaceUpdate', 'cs-h'] },
    ]],
  ])('%s', (_name, lifecycle, pods, expected) => {
    const waits = hookWaits(ctxFor(cloneSet({ replicas: pods.length, lifecycle }), pods));
    expect(waits.map((w) => w.kind)).toEqual(expected.map(() => 'lifecycleHook'));
    waits.forEach((w, i) => {
      for (const part of expected[i]!.parts) expect(waitMessage(w)).toContain(part);
    });
  });

  it('counts the held pods', () => {
    const pods = ['cs-x', 'cs-y'].map((name) => withFinalizers(pod({ state: 'PreparingDelete', name }), ['example.com/drain']));
    expect(hookWaits(ctxFor(cloneSet({ replicas: 2, lifecycle: preDelete }), pods)).map(waitMessage)[0]).toContain('2 pod(s): cs-x, cs-y');
  });

  it('reaches the pass as a hold, not a failure: PodsHeld True, FailedScale untouched, one Normal Event', () => {
    const held = withFinalizers(pod({ state: 'PreparingDelete', name: 'cs-held' }), ['example.com/drain']);
    const plan = planReconcile({ cs: cloneSet({ replicas: 1, lifecycle: preDelete }), pods: [held], pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(1) });
    expect(onConditions(plan.waits)).toEqual([]);
    expect(plan.waits.filter(isHold).map((w) => [w.kind, waitMessage(w)])).toEqual([['lifecycleHook', expect.stringContaining('cs-held')]]);
    expect(plan.actions.filter((a) => a.kind === 'event').map((a) => a.kind === 'event' && `${a.type} ${a.reason}`)).toEqual(['Normal WaitingForLifecycleHook']);
    const { status } = computeStatus(statusInputFor(plan, [], NOW));
    expect(status.conditions?.map((c) => `${c.type} ${c.status} ${c.reason ?? ''}`)).toEqual(['PodsHeld True LifecycleHook']);
  });
});
