// One pass's work is bounded whatever the spec says, and planning stays
// iterative: 130,000 replicas plan without a stack overflow. No wall-clock limit here (a loaded
// machine must not fail a unit test; `npm run bench` measures speed): a planner that went
// quadratic would take billions of steps at this size and run into the per-test timeout.
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import type { PlannedAction } from '../../src/core/plan.ts';
import { planReconcile, type ReconcileInput } from '../../src/core/reconcile-plan.ts';
import { MAX_POD_WRITES_PER_PASS } from '../../src/core/pass-limits.ts';
import { NOW, cloneSet, seededRandom, settledPods } from './fixtures.ts';

const REPLICAS = 130_000;
const count = (actions: readonly PlannedAction[], kind: PlannedAction['kind']) => actions.filter((a) => a.kind === kind).length;

function input(replicas: number, pods: V1Pod[], extra: Partial<ReconcileInput> = {}): ReconcileInput {
  return { cs: cloneSet({ replicas }), pods, pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(11), ...extra };
}

describe('a pass at 130,000 replicas', () => {
  it(`scale-out from nothing plans at most ${MAX_POD_WRITES_PER_PASS} creates, in slow-start batches within that bound, and asks to come back`, () => {
    const plan = planReconcile(input(REPLICAS, []));
    expect(count(plan.actions, 'createPod')).toBe(MAX_POD_WRITES_PER_PASS);
    const batches = new Set(plan.actions.flatMap((a) => (a.kind === 'createPod' ? [a.batch] : [])));
    expect(Math.max(...batches)).toBe(Math.ceil(Math.log2(MAX_POD_WRITES_PER_PASS + 1)) - 1);
    expect(plan.requeueAfterMs).toBeGreaterThan(0);
  });

  it('with 130,000 pods present and settled, plans nothing', () => {
    const { pods, revisions } = settledPods(REPLICAS);
    const plan = planReconcile(input(REPLICAS, pods, { revisions }));
    expect(plan.actions).toEqual([]);
  });

  it(`scale-in of 130,000 pods to 0 deletes at most ${MAX_POD_WRITES_PER_PASS} in a pass`, () => {
    const { pods, revisions } = settledPods(REPLICAS);
    const plan = planReconcile(input(0, pods, { revisions }));
    expect(count(plan.actions, 'deletePod')).toBe(MAX_POD_WRITES_PER_PASS);
    expect(plan.requeueAfterMs).toBeGreaterThan(0);
  });

  it('130,000 pods that each need a write (hash back-fill) plan without a stack overflow, bounded too', () => {
    const { pods, revisions } = settledPods(REPLICAS);
    for (const p of pods) delete p.metadata!.labels!['pod-template-hash'];
    const plan = planReconcile(input(REPLICAS, pods, { revisions }));
    expect(count(plan.actions, 'patchPod')).toBeLessThanOrEqual(MAX_POD_WRITES_PER_PASS);
    expect(count(plan.actions, 'patchPod')).toBeGreaterThan(0);
  });
});

describe('PVC clean-up (disablePVCReuse) at scale', () => {
  it(`re-owns or deletes at most ${MAX_POD_WRITES_PER_PASS} claims in a pass`, async () => {
    const { planPvcCleanup } = await import('../../src/core/scale/scale-plan.ts');
    const { pvc } = await import('./fixtures.ts');
    const claims = Array.from({ length: 20_000 }, (_, i) => pvc(`data-${i}`, `x${i}`));
    const r = planPvcCleanup({ cs: cloneSet({ scaleStrategy: { disablePVCReuse: true } }), allPods: [], pvcs: claims });
    expect(r.actions).toHaveLength(MAX_POD_WRITES_PER_PASS);
    expect(r.remaining).toEqual([]);
  });
});
