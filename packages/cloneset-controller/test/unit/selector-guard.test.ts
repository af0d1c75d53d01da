// Defence in depth: a CloneSet whose selector would release the pods it creates
// creates none, says why on FailedScale and with a Warning, whatever the admission layer let through.
import { describe, expect, it } from 'vitest';
import type { PlanAction } from '../../src/core/plan.ts';
import { planReconcile } from '../../src/core/reconcile-plan.ts';
import { planScale } from '../../src/core/scale/scale-plan.ts';
import type { Selector } from '../../src/core/types.ts';
import { NOW, cloneSet, ctxFor, onConditions, seededRandom } from './fixtures.ts';

const withSelector = (matchExpressions: NonNullable<Selector['matchExpressions']>) => cloneSet({ replicas: 3, selector: { matchLabels: { app: 'demo' }, matchExpressions } });
const kinds = (actions: readonly PlanAction[]) => actions.map((a) => (a.kind === 'event' ? `event:${a.reason}` : a.kind));

describe('scale-out refuses pods its own selector would release', () => {
  it.each<[string, NonNullable<Selector['matchExpressions']>]>([
    ['pod-template-hash DoesNotExist (excluding a Deployment)', [{ key: 'pod-template-hash', operator: 'DoesNotExist' }]],
    ['controller-revision-hash DoesNotExist', [{ key: 'controller-revision-hash', operator: 'DoesNotExist' }]],
    ['the instance id DoesNotExist', [{ key: 'apps.kruise.io/cloneset-instance-id', operator: 'DoesNotExist' }]],
    ['a lifecycle state other than the one pods are created in', [{ key: 'lifecycle.apps.kruise.io/state', operator: 'In', values: ['Normal'] }]],
  ])('%s: no create, FailedScale and a Warning naming the selector', (_name, matchExpressions) => {
    const plan = planScale(ctxFor(withSelector(matchExpressions), []));
    expect(kinds(plan.actions)).toEqual(['event:SelectorExcludesCreatedPods']);
    expect(plan.modified).toBe(false);
    expect(onConditions(plan.waits)).toEqual([{ condition: 'FailedScale', message: expect.stringContaining('spec.selector (app=demo,') }]);
  });

  it.each<[string, NonNullable<Selector['matchExpressions']>]>([
    ['no expressions', []],
    ['an expression the template satisfies', [{ key: 'app', operator: 'In', values: ['demo', 'web'] }]],
    ['excluding a label nobody adds', [{ key: 'tier', operator: 'DoesNotExist' }]],
  ])('%s: creates as usual', (_name, matchExpressions) => {
    const plan = planScale(ctxFor(withSelector(matchExpressions), []));
    expect(kinds(plan.actions)).toEqual(['createPod', 'createPod', 'createPod']);
    expect(onConditions(plan.waits)).toEqual([]);
  });

  it('a whole pass sets the condition and does not fail (nothing to retry until the spec changes)', () => {
    const cs = withSelector([{ key: 'pod-template-hash', operator: 'DoesNotExist' }]);
    const plan = planReconcile({ cs, pods: [], pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(3) });
    expect(plan.actions.filter((a) => a.kind === 'createPod')).toEqual([]);
    expect(plan.errors).toEqual([]);
    expect(onConditions(plan.waits).map((w) => w.condition)).toEqual(['FailedScale']);
  });
});
