// ReCreate: the pass that marks pods specified-delete also plans the deletes the next pass's
// Scale step would make of them, and only those.
import type { V1Pod } from '@kubernetes/client-node';
import { KUSION_CONTROL_LABEL } from '@cloneset-suite/api-types';
import { describe, expect, it } from 'vitest';
import { POD_TEMPLATE_HASH_LABEL } from '../../src/core/keys.ts';
import { planReconcile } from '../../src/core/reconcile-plan.ts';
import type { CloneSetLike, CloneSetSpecLike } from '../../src/core/types.ts';
import { NOW, cloneSet, pod, revision, seededRandom, templateWithImage } from './fixtures.ts';

const revisions = (cs: CloneSetLike) => [revision('cs-old', 1, templateWithImage('nginx:0')), revision('cs-new', 2, cs.spec.template)];
const rolling = (spec: Partial<CloneSetSpecLike> = {}) =>
  cloneSet({ replicas: 5, updateStrategy: { maxUnavailable: 2 }, ...spec }, { status: { currentRevision: 'cs-old' } });
/** Five settled pods at the old revision (refresh has nothing to write). */
const settled = (labels: Record<string, string> = {}): V1Pod[] =>
  Array.from({ length: 5 }, (_, i) => pod({ id: `p${i}`, rev: 'cs-old', state: 'Normal', labels: { [POD_TEMPLATE_HASH_LABEL]: 'old', ...labels } }));
const plan = (cs: CloneSetLike, pods: V1Pod[]) => planReconcile({ cs, pods, pvcs: [], revisions: revisions(cs), gates: {}, nowMs: NOW, random: seededRandom(1) });
const summary = (cs: CloneSetLike, pods: V1Pod[]) =>
  plan(cs, pods).actions.filter((a) => a.kind === 'patchPod' || a.kind === 'deletePod' || a.kind === 'beginOperation').map((a) => `${a.step}:${a.kind}:${'name' in a ? a.name : ''}`);

describe('ReCreate: the marks and their deletes in one pass', () => {
  it('marks up to maxUnavailable pods, then deletes exactly those, marks first', () => {
    expect(summary(rolling(), settled())).toEqual(['update:patchPod:cs-p0', 'update:patchPod:cs-p1', 'scale:deletePod:cs-p0', 'scale:deletePod:cs-p1']);
  });

  it('the deletes are the ones the next pass plans once the marks are in the cache', () => {
    const cs = rolling();
    const marked = settled().map((p, i) => (i < 2 ? pod({ id: `p${i}`, rev: 'cs-old', state: 'Normal', sd: true, labels: { [POD_TEMPLATE_HASH_LABEL]: 'old' } }) : p));
    const now = plan(cs, settled()).actions.filter((a) => a.kind === 'deletePod');
    const next = plan(cs, marked).actions.filter((a) => a.kind === 'deletePod');
    expect(now).toEqual(next);
    expect(now.map((a) => a.kind === 'deletePod' && a.reason)).toEqual(['SpecifiedDelete', 'SpecifiedDelete']);
  });

  it.each<[string, CloneSetLike, V1Pod[]]>([
    ['a preDelete hook holds the marked pods: the next pass moves them to PreparingDelete', rolling({ lifecycle: { preDelete: { labelsHandler: { hook: 'on' } } } }), settled({ hook: 'on' })],
    ['PodOpsLifecycle pods begin their operation first', rolling(), settled({ [KUSION_CONTROL_LABEL]: 'true' })],
    ['maxSurge: the next pass creates replacements first', rolling({ updateStrategy: { maxUnavailable: 2, maxSurge: 1 } }), settled()],
  ])('nothing is deleted early when %s', (_name, cs, pods) => {
    expect(plan(cs, pods).actions.filter((a) => a.kind === 'deletePod')).toEqual([]);
  });

  it('InPlaceIfPossible marks nothing and deletes nothing', () => {
    const actions = plan(rolling({ updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 2 } }), settled()).actions;
    expect(actions.filter((a) => a.kind === 'deletePod' || a.kind === 'patchPod')).toEqual([]);
    expect(actions.filter((a) => a.kind === 'inPlaceUpdate')).toHaveLength(2);
  });
});
