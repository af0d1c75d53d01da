// A grace or state annotation someone else wrote badly must not wedge the
// CloneSet. Refresh treats it as absent (the grace is dropped, so completion is not blocked by it),
// says so with a Warning that names the pod and the annotation, and never throws.
import { describe, expect, it } from 'vitest';
import { planReconcile } from '../../src/core/reconcile-plan.ts';
import { planRefreshStages, refreshPod } from '../../src/core/update/refresh.ts';
import { runToEnd } from '../../src/core/stages.ts';
import { NOW, cloneSet, ctxFor, pod, seededRandom } from './fixtures.ts';

const GRACE = 'apps.kruise.io/inplace-update-grace';
const STATE = 'apps.kruise.io/inplace-update-state';

function podWith(annotations: Record<string, string>) {
  const p = pod({ name: 'cs-g', rev: 'cs-new', state: 'Updating' });
  Object.assign(p.metadata!.annotations!, annotations);
  return p;
}

const cs = cloneSet({ replicas: 1, updateStrategy: { type: 'InPlaceIfPossible', inPlaceUpdateStrategy: { gracePeriodSeconds: 10 } } });

describe('refresh with a malformed grace annotation', () => {
  it.each([
    ['a revision that is a number', '{"revision":5}'],
    ['not JSON at all', 'soon'],
    ['JSON null', 'null'],
    ['an array', '[1,2]'],
    ['graceSeconds that is not a number', '{"revision":"cs-new","graceSeconds":"ten"}'],
    ['containerImages that are not strings', '{"revision":"cs-new","graceSeconds":1,"containerImages":{"main":7}}'],
  ])('%s: dropped as absent, with a Warning naming the pod and the key', (_name, raw) => {
    const p = podWith({ [GRACE]: raw });
    const r = refreshPod(ctxFor(cs, [p]), p);
    expect(r.actions).toContainEqual({ kind: 'patchPod', name: 'cs-g', reason: 'DropInPlaceGrace', annotations: { [GRACE]: null } });
    const warnings = r.actions.filter((a) => a.kind === 'event');
    expect(warnings).toEqual([{ kind: 'event', type: 'Warning', reason: 'InvalidInPlaceUpdateAnnotation', message: expect.stringMatching(/pod cs-g.*apps\.kruise\.io\/inplace-update-grace/) }]);
    expect(r.actions.some((a) => a.kind === 'inPlaceUpdate')).toBe(false);
  });

  it('a malformed state annotation reads as no state, is removed, with a Warning', () => {
    const p = podWith({ [STATE]: '{"revision":5,"lastContainerStatuses":"x"}' });
    const r = refreshPod(ctxFor(cs, [p]), p);
    expect(r.actions).toContainEqual({ kind: 'patchPod', name: 'cs-g', reason: 'DropMalformedAnnotation', annotations: { [STATE]: null } });
    expect(r.actions.filter((a) => a.kind === 'event')).toEqual([
      { kind: 'event', type: 'Warning', reason: 'InvalidInPlaceUpdateAnnotation', message: expect.stringMatching(/pod cs-g.*apps\.kruise\.io\/inplace-update-state/) },
    ]);
  });

  it('a whole pass over such a pod plans instead of throwing', () => {
    const p = podWith({ [GRACE]: '{"revision":5}', [STATE]: '7' });
    expect(() => runToEnd(planRefreshStages(ctxFor(cs, [p])))).not.toThrow();
    expect(() => planReconcile({ cs, pods: [p], pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(1) })).not.toThrow();
  });
});
