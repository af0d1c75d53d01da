import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import type { Diffs } from '../../src/core/update/diff.ts';
import type { SyncStep } from '../../src/core/reconcile-plan.ts';
import { computeStatus, statusEquals, type StatusInput } from '../../src/core/status/status.ts';
import type { CloneSetSpecLike, StatusCondition } from '../../src/core/types.ts';
import { NOW, cloneSet, pod } from './fixtures.ts';

function input(ps: V1Pod[], spec: Partial<CloneSetSpecLike> = {}, extra: Partial<StatusInput> = {}, conditions?: StatusCondition[]): StatusInput {
  return {
    cs: cloneSet({ replicas: ps.length, ...spec }, { status: conditions ? { conditions } : {} }),
    pods: ps,
    updateRevision: 'cs-new',
    currentRevision: 'cs-old',
    collisionCount: 0,
    partition: 0,
    failures: {},
    nowMs: NOW,
    ...extra,
  };
}

describe('computeStatus counters', () => {
  it('counts replicas, ready (lifecycle ignored), available (lifecycle + minReadySeconds) and updated (short hash too)', () => {
    const ps = [
      pod({ rev: 'cs-new', state: 'Normal' }),
      pod({ rev: 'new', state: 'PreparingNormal' }), // ready, not available
      pod({ rev: 'cs-new', readySinceSec: 5 }), // ready, not yet available
      pod({ rev: 'cs-old', ready: false }),
    ];
    const { status, requeueAfterMs } = computeStatus(input(ps, { replicas: 5, minReadySeconds: 10 }, { partition: 2 }));
    expect(status).toMatchObject({
      observedGeneration: 1,
      replicas: 4,
      readyReplicas: 3,
      availableReplicas: 1,
      updatedReplicas: 3,
      updatedReadyReplicas: 3,
      updatedAvailableReplicas: 1,
      expectedUpdatedReplicas: 3,
      updateRevision: 'cs-new',
      currentRevision: 'cs-old',
      labelSelector: 'app=demo',
    });
    expect(requeueAfterMs).toBe(5000);
  });

  it.each([
    ['all updated and count matches', ['cs-new', 'cs-new'], 2, 'cs-new'],
    ['count differs from spec', ['cs-new', 'cs-new'], 3, 'cs-old'],
    ['one pod not updated', ['cs-new', 'cs-old'], 2, 'cs-old'],
  ])('currentRevision: %s', (_n, revs, replicas, want) => {
    const ps = revs.map((rev) => pod({ rev, ready: false }));
    expect(computeStatus(input(ps, { replicas })).status.currentRevision).toBe(want);
  });

  it('expectedUpdatedReplicas: 0 for an invalid partition, R for OnDelete', () => {
    expect(computeStatus(input([pod({})], { replicas: 3 }, { partition: undefined })).status.expectedUpdatedReplicas).toBe(0);
    expect(computeStatus(input([pod({})], { replicas: 3, updateStrategy: { type: 'OnDelete', partition: 2 } }, { partition: 2 })).status.expectedUpdatedReplicas).toBe(3);
  });
});

describe('conditions: failures set and cleared on the next successful pass', () => {
  const failed: StatusCondition = { type: 'FailedScale', status: 'True', message: 'boom', lastTransitionTime: '2026-01-01T00:00:00Z' };
  it('a failure sets the condition True with the error', () => {
    const s = computeStatus(input([pod({})], {}, { failures: { FailedScale: 'boom' } })).status;
    expect(s.conditions).toEqual([expect.objectContaining({ type: 'FailedScale', status: 'True', message: 'boom' })]);
  });
  it('a repeated failure keeps the condition as it is, message included (no status write per retry)', () => {
    const again = computeStatus(input([pod({})], {}, { failures: { FailedScale: 'boom again, other pod' } }, [failed])).status;
    expect(again.conditions).toEqual([failed]);
  });
  it('the next successful pass clears it to False; a step that did not run leaves it', () => {
    const cleared = computeStatus(input([pod({})], {}, { failures: { FailedScale: null } }, [failed])).status;
    expect(cleared.conditions).toEqual([expect.objectContaining({ type: 'FailedScale', status: 'False' })]);
    const kept = computeStatus(input([pod({})], {}, { failures: {} }, [failed])).status;
    expect(kept.conditions).toEqual([failed]);
  });
});

describe('Progressing (OpenKruise v1.9, in v1alpha1 here)', () => {
  const at = (sAgo: number) => new Date(NOW - sAgo * 1000).toISOString();
  it.each<[string, string[], Partial<CloneSetSpecLike>, Partial<StatusInput>, StatusCondition[] | undefined, string, string]>([
    ['available', ['cs-new', 'cs-new'], {}, { currentRevision: 'cs-new' }, undefined, 'True', 'CloneSetAvailable'],
    ['paused', ['cs-old', 'cs-old'], { updateStrategy: { paused: true } }, {}, undefined, 'True', 'CloneSetPaused'],
    ['partition reached', ['cs-old', 'cs-new'], {}, { partition: 1 }, undefined, 'True', 'ProgressPartitionAvailable'],
    ['progressing', ['cs-old', 'cs-old'], {}, {}, undefined, 'True', 'CloneSetUpdated'],
    [
      'deadline exceeded',
      ['cs-old', 'cs-old'],
      {},
      {},
      [{ type: 'Progressing', status: 'True', reason: 'CloneSetUpdated', lastUpdateTime: at(700) }],
      'False',
      'ProgressDeadlineExceeded',
    ],
    [
      'stays exceeded',
      ['cs-old', 'cs-old'],
      {},
      {},
      [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', lastUpdateTime: at(1) }],
      'False',
      'ProgressDeadlineExceeded',
    ],
  ])('%s', (_n, revs, spec, extra, conds, status, reason) => {
    const ps = revs.map((rev) => pod({ rev }));
    const r = computeStatus(input(ps, { progressDeadlineSeconds: 600, ...spec }, extra, conds));
    expect(r.status.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({ status, reason });
  });

  it('requeues at the deadline and is removed without progressDeadlineSeconds', () => {
    const r = computeStatus(input([pod({ rev: 'cs-old' })], { progressDeadlineSeconds: 60 }));
    expect(r.requeueAfterMs).toBe(61_000);
    const gone = computeStatus(input([pod({})], {}, {}, [{ type: 'Progressing', status: 'True', reason: 'CloneSetUpdated' }]));
    expect(gone.status.conditions).toBeUndefined();
  });
});

describe('statusEquals (a settled CloneSet writes nothing)', () => {
  it('equal after recomputation on the same observation, different on any counter or condition', () => {
    const ps = [pod({ rev: 'cs-new' })];
    const a = computeStatus(input(ps, { progressDeadlineSeconds: 60 }, { currentRevision: 'cs-new' })).status;
    const cs2 = input(ps, { progressDeadlineSeconds: 60 }, { currentRevision: 'cs-new', nowMs: NOW + 5000 });
    cs2.cs.status = a;
    const b = computeStatus(cs2).status;
    expect(statusEquals(a, b)).toBe(true);
    expect(statusEquals(a, { ...b, readyReplicas: 0 })).toBe(false);
    expect(statusEquals(a, { ...b, conditions: [] })).toBe(false);
    expect(statusEquals(undefined, b)).toBe(false);
  });
});

describe('statusInputFor (the only status glue, used by the controller)', () => {
  const plan = async (spec: Partial<CloneSetSpecLike>) => {
    const { planReconcile } = await import('../../src/core/reconcile-plan.ts');
    const { seededRandom } = await import('./fixtures.ts');
    const template = { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'main', image: 'x', env: [{ name: 'A', value: '1' }] }] } };
    return planReconcile({ cs: cloneSet({ replicas: 1, template, ...spec }), pods: [], pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(1) });
  };

  it('clears the condition of a step that ran cleanly, leaves one that did not run', async () => {
    const { statusInputFor } = await import('../../src/core/reconcile-plan.ts');
    const p = await plan({ updateStrategy: { type: 'InPlaceOnly', maxUnavailable: 1 } });
    expect(p.sync.step).toBe('scale');
    expect(statusInputFor(p, [], NOW).failures).toEqual({ FailedScale: null });
  });

  it.each<[string, (scaleDiffs: Diffs) => SyncStep, StatusInput['failures']]>([
    ['none (deleting): leaves both', () => ({ step: 'none', reason: 'deleting' }), {}],
    ['scale: clears FailedScale, leaves FailedUpdate', (scaleDiffs) => ({ step: 'scale', scaleDiffs }), { FailedScale: null }],
    ['update: clears both', (scaleDiffs) => ({ step: 'update', scaleDiffs, update: { stoppedBy: 'paused' } }), { FailedScale: null, FailedUpdate: null }],
  ])('a clean pass whose sync step was %s', async (_name, syncOf, want) => {
    const { statusInputFor } = await import('../../src/core/reconcile-plan.ts');
    const p = await plan({});
    if (p.sync.step !== 'scale') throw new Error('expected Scale to have written');
    expect(statusInputFor({ ...p, sync: syncOf(p.sync.scaleDiffs) }, [], NOW).failures).toEqual(want);
  });

  it('joins every failure of a condition; an action fails the condition of the step that planned it', async () => {
    const { statusInputFor } = await import('../../src/core/reconcile-plan.ts');
    const p = await plan({});
    const failures = [
      { step: 'scale' as const, message: 'create pod a: quota' },
      { step: 'update' as const, message: 'patchPod b: conflict' },
      { step: 'scale' as const, message: 'setPodConditions c: gone' },
    ];
    expect(statusInputFor(p, failures, NOW).failures).toEqual({ FailedScale: 'create pod a: quota; setPodConditions c: gone', FailedUpdate: 'patchPod b: conflict' });
  });

  it('an invalid partition (one that bypassed admission) yields expectedUpdatedReplicas 0, not replicas', async () => {
    const { statusInputFor } = await import('../../src/core/reconcile-plan.ts');
    const p = await plan({ replicas: 3, updateStrategy: { partition: 'abc' } });
    expect(p.context.knobs.partitionValid).toBe(false);
    expect(computeStatus(statusInputFor(p, [], NOW)).status.expectedUpdatedReplicas).toBe(0);
  });
});
