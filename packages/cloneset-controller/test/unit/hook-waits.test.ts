import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { hookWaits } from '../../src/core/hook-waits.ts';
import { planReconcile } from '../../src/core/reconcile-plan.ts';
import type { CloneSetLifecycle } from '../../src/core/types.ts';
import { NOW, cloneSet, ctxFor, pod, seededRandom } from './fixtures.ts';

const withFinalizers = (p: V1Pod, finalizers: string[]): V1Pod => ({ ...p, metadata: { ...p.metadata, finalizers } });
const preDelete: CloneSetLifecycle = { preDelete: { finalizersHandler: ['example.com/drain'], labelsHandler: { 'example.com/hold': 'true' } } };
const inPlace: CloneSetLifecycle = { inPlaceUpdate: { labelsHandler: { 'example.com/warm': 'true' } } };

describe('hookWaits: a pod a lifecycle hook holds is reported on the condition, naming the hook', () => {
  it.each<[string, CloneSetLifecycle | undefined, V1Pod[], { condition: string; parts: string[] }[]]>([
    ['no lifecycle: nothing', undefined, [pod({ state: 'PreparingDelete', name: 'cs-a' })], []],
    ['preDelete finalizer holds a PreparingDelete pod', preDelete, [withFinalizers(pod({ state: 'PreparingDelete', name: 'cs-a' }), ['example.com/drain'])], [
      { condition: 'FailedScale', parts: ['preDelete', 'finalizer example.com/drain', 'cs-a'] },
    ]],
    ['preDelete label holds it', preDelete, [pod({ state: 'PreparingDelete', name: 'cs-b', labels: { 'example.com/hold': 'true' } })], [
      { condition: 'FailedScale', parts: ['preDelete', 'label example.com/hold=true', 'cs-b'] },
    ]],
    ['a released pre-delete (hook gone) waits for nothing', preDelete, [pod({ state: 'PreparingDelete', name: 'cs-c' })], []],
    ['a hooked pod not in PreparingDelete waits for nothing', preDelete, [pod({ state: 'Normal', name: 'cs-d', labels: { 'example.com/hold': 'true' } })], []],
    ['inPlaceUpdate label holds a PreparingUpdate pod', inPlace, [pod({ state: 'PreparingUpdate', name: 'cs-e', labels: { 'example.com/warm': 'true' } })], [
      { condition: 'FailedUpdate', parts: ['inPlaceUpdate', 'label example.com/warm=true', 'cs-e'] },
    ]],
    ['both hooks, several pods: one wait per hook naming every pod', { ...preDelete, ...inPlace }, [
      pod({ state: 'PreparingDelete', name: 'cs-f', labels: { 'example.com/hold': 'true' } }),
      withFinalizers(pod({ state: 'PreparingDelete', name: 'cs-g' }), ['example.com/drain']),
      pod({ state: 'PreparingUpdate', name: 'cs-h', labels: { 'example.com/warm': 'true' } }),
    ], [
      { condition: 'FailedScale', parts: ['preDelete', 'cs-f', 'cs-g'] },
      { condition: 'FailedUpdate', parts: ['inPlaceUpdate', 'cs-h'] },
    ]],
  ])('%s', (_name, lifecycle, pods, expected) => {
    const waits = hookWaits(ctxFor(cloneSet({ replicas: pods.length, ...(lifecycle ? { lifecycle } : {}) }), pods));
    expect(waits.map((w) => w.condition)).toEqual(expected.map((e) => e.condition));
    waits.forEach((w, i) => {
      for (const part of expected[i]!.parts) expect(w.message).toContain(part);
    });
  });

  it('reaches the pass: planReconcile carries the wait, so status gets the FailedScale condition', () => {
    const held = withFinalizers(pod({ state: 'PreparingDelete', name: 'cs-held' }), ['example.com/drain']);
    const plan = planReconcile({ cs: cloneSet({ replicas: 1, lifecycle: preDelete }), pods: [held], pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(1) });
    expect(plan.waits).toEqual([{ condition: 'FailedScale', message: expect.stringContaining('cs-held') }]);
  });
});
