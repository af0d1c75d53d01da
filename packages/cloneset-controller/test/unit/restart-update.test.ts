// A restart restarts: a template change of kubectl.kubernetes.io/restartedAt re-creates every pod
// as a ReCreate update would, whatever the strategy, under the update budget, partition and pause,
// and through PodOpsLifecycle for controlled pods.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import { KUBECTL_RESTARTED_AT_ANNOTATION, KUSION_CONTROL_LABEL, POL_LABELS } from '@cloneset-suite/api-types';
import { needsRecreate, scaleDiffs } from '../../src/core/update/step-diffs.ts';
import { inPlaceDiff } from '../../src/core/update/inplace.ts';
import type { OperationAction, PatchPodAction, PlanAction } from '../../src/core/plan.ts';
import { planScale } from '../../src/core/scale/scale-plan.ts';
import type { CloneSetSpecLike } from '../../src/core/types.ts';
import { planUpdate } from '../../src/core/update/update-plan.ts';
import { cloneSet, ctxFor, pod, type PodOpts } from './fixtures.ts';

const T1 = '2026-01-01T00:00:00Z';
const T2 = '2026-01-01T00:05:00Z';

function template(o: { restartedAt?: string; image?: string; env?: string; label?: string } = {}): V1PodTemplateSpec {
  return {
    metadata: {
      labels: { app: 'demo', ...(o.label ? { tier: o.label } : {}) },
      ...(o.restartedAt ? { annotations: { [KUBECTL_RESTARTED_AT_ANNOTATION]: o.restartedAt } } : {}),
    },
    spec: { containers: [{ name: 'main', image: o.image ?? 'nginx:1', ...(o.env ? { env: [{ name: 'E', value: o.env }] } : {}) }] },
  };
}

const oldPod: PodOpts = { rev: 'cs-old', state: 'Normal', labels: { 'pod-template-hash': 'old' } };
const olds = (n: number, o: PodOpts = {}) => Array.from({ length: n }, () => pod({ ...oldPod, ...o }));
const marked = (a: PlanAction[]) => a.filter((x): x is PatchPodAction => x.kind === 'patchPod' && x.reason === 'RecreateUpdate').map((x) => x.name);
const inPlace = (a: PlanAction[]) => a.filter((x) => x.kind === 'inPlaceUpdate');

/** Five pods at a revision with `from`, the CloneSet's template now `to`. */
function plan(type: string, from: V1PodTemplateSpec, to: V1PodTemplateSpec, strategy: NonNullable<CloneSetSpecLike['updateStrategy']> = {}, pods: V1Pod[] = olds(5)) {
  const cs = cloneSet({ replicas: pods.length, template: to, updateStrategy: { type, maxUnavailable: 2, ...strategy } });
  const ctx = ctxFor(cs, pods, { oldTemplate: from });
  return { ctx, update: planUpdate(ctx) };
}

describe('a restart re-creates pods, whatever the strategy', () => {
  it.each(['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly'])('%s: a restartedAt-only change marks pods for re-creation within maxUnavailable, none in place, no error', (type) => {
    const { update } = plan(type, template({ restartedAt: T1 }), template({ restartedAt: T2 }));
    expect(marked(update.actions)).toHaveLength(2);
    expect(inPlace(update.actions)).toEqual([]);
    expect(update.errors).toEqual([]);
  });

  it('the first restart (the stamp added) and a rollback past one (the stamp removed) are restarts too', () => {
    expect(marked(plan('InPlaceIfPossible', template(), template({ restartedAt: T1 })).update.actions)).toHaveLength(2);
    expect(marked(plan('InPlaceIfPossible', template({ restartedAt: T1 }), template()).update.actions)).toHaveLength(2);
  });

  it('OnDelete keeps its contract: nothing moves until someone deletes a pod', () => {
    const { update } = plan('OnDelete', template({ restartedAt: T1 }), template({ restartedAt: T2 }));
    expect(update.actions.filter((a) => a.kind !== 'setPodConditions' && a.kind !== 'patchPod')).toEqual([]);
    expect(marked(update.actions)).toEqual([]);
  });

  it('a restart that comes with other changes re-creates the pod, even under InPlaceOnly', () => {
    for (const type of ['InPlaceIfPossible', 'InPlaceOnly']) {
      const withImage = plan(type, template({ restartedAt: T1 }), template({ restartedAt: T2, image: 'nginx:2' }));
      expect(marked(withImage.update.actions), type).toHaveLength(2);
      expect(inPlace(withImage.update.actions), type).toEqual([]);
      // An env change alone is refused under InPlaceOnly; with a restart the pod is re-created.
      const withEnv = plan(type, template({ restartedAt: T1 }), template({ restartedAt: T2, env: 'x' }));
      expect(marked(withEnv.update.actions), type).toHaveLength(2);
      expect(withEnv.update.errors, type).toEqual([]);
    }
    expect(plan('InPlaceOnly', template(), template({ env: 'x' })).update.errors).not.toEqual([]);
  });

  it('after a restart, a change that keeps the stamp is made in place again', () => {
    const { update } = plan('InPlaceIfPossible', template({ restartedAt: T1 }), template({ restartedAt: T1, image: 'nginx:2', label: 'web' }));
    expect(marked(update.actions)).toEqual([]);
    expect(inPlace(update.actions)).toHaveLength(2);
  });

  it('honours partition and paused', () => {
    expect(marked(plan('InPlaceIfPossible', template({ restartedAt: T1 }), template({ restartedAt: T2 }), { partition: 4 }).update.actions)).toHaveLength(1);
    expect(marked(plan('InPlaceIfPossible', template({ restartedAt: T1 }), template({ restartedAt: T2 }), { paused: true }).update.actions)).toEqual([]);
  });

  it('InPlaceIfPossible with maxSurge: surge pods come first for the pods a restart re-creates (the surge counts only the pods to re-create)', () => {
    const restart = plan('InPlaceIfPossible', template({ restartedAt: T1 }), template({ restartedAt: T2 }), { maxSurge: 1, maxUnavailable: 0 });
    expect(restart.ctx.pods.every((p) => needsRecreate(restart.ctx, p))).toBe(true);
    expect(scaleDiffs(restart.ctx).scaleUpNum).toBe(1);
    expect(planScale(restart.ctx).actions.filter((a) => a.kind === 'createPod')).toHaveLength(1);
    // An image change is made in place: no surge pod.
    const image = plan('InPlaceIfPossible', template({ restartedAt: T1 }), template({ restartedAt: T1, image: 'nginx:2' }), { maxSurge: 1, maxUnavailable: 1 });
    expect(scaleDiffs(image.ctx).scaleUpNum).toBe(0);
  });

  it('controlled pods go through PodOpsLifecycle: an update begun with the delete announced', () => {
    const control = { ...oldPod.labels, [KUSION_CONTROL_LABEL]: 'true', [POL_LABELS.serviceAvailable]: '1767225600000000000' };
    for (const type of ['InPlaceIfPossible', 'InPlaceOnly']) {
      const { update } = plan(type, template({ restartedAt: T1 }), template({ restartedAt: T2 }), {}, olds(5, { labels: control }));
      const begins = update.actions.filter((a): a is OperationAction => a.kind === 'beginOperation');
      expect(begins, type).toHaveLength(2);
      for (const b of begins) expect(b, type).toMatchObject({ type: 'update', deletesPod: true });
      expect(marked(update.actions), type).toEqual([]);
    }
  });
});

describe('restart property', () => {
  const change = fc.record({ image: fc.boolean(), label: fc.boolean(), restart: fc.boolean() });
  it('a pair of templates is made in place only when the restart stamp is the same in both', () => {
    fc.assert(
      fc.property(change, fc.constantFrom(undefined, T1), (c, stamp) => {
        const from = template({ restartedAt: stamp });
        const to = template({ ...(c.restart ? { restartedAt: T2 } : stamp ? { restartedAt: stamp } : {}), ...(c.image ? { image: 'nginx:2' } : {}), ...(c.label ? { label: 'x' } : {}) });
        expect(inPlaceDiff(from, to) === undefined).toBe(c.restart);
      }),
    );
  });
});
