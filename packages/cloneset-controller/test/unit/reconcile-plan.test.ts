import { describe, expect, it } from 'vitest';
import { describePlan, planReconcile } from '../../src/core/reconcile-plan.ts';
import { NOW, cloneSet, pod, seededRandom } from './fixtures.ts';

describe('planReconcile: every action says which step planned it', () => {
  it('scale-out from nothing: a revision (revisions step), then creates (scale step)', () => {
    const plan = planReconcile({ cs: cloneSet({ replicas: 3 }), pods: [], pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(1) });
    expect(plan.actions.map((a) => `${a.step}:${a.kind}`)).toEqual(['revisions:createRevision', 'scale:createPod', 'scale:createPod', 'scale:createPod']);
  });
});

describe('describePlan (the debug line of every pass)', () => {
  it('carries the diff numbers of each step and the actions per kind and reason', () => {
    const cs = cloneSet({ replicas: 1 });
    const extra = [pod({ rev: 'x' }), pod({ rev: 'x' })];
    const plan = planReconcile({ cs, pods: extra, pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(1) });
    const line = describePlan(plan);
    expect(line).toMatchObject({
      replicas: 1,
      pods: 2,
      stepsRun: { scale: true, update: false },
      scaleDiffs: expect.objectContaining({ scaleDownNum: 1, scaleUpNum: 0 }),
      actions: { createRevision: 1, 'deletePod:ScaleIn': 1 },
    });
    expect(line).not.toHaveProperty('updateDiffs');
  });
});
