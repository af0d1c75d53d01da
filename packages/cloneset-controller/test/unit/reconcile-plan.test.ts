import type { V1Pod } from '@kubernetes/client-node';
import fc from 'fast-check';
import { deepFreeze } from '@cloneset-suite/kube-runtime';
import { describe, expect, it } from 'vitest';
import { describePlan, planReconcile, planReconcileStages, type ReconcileInput, type SyncStep } from '../../src/core/reconcile-plan.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../../src/core/keys.ts';
import { REFRESH_PODS_PER_STAGE } from '../../src/core/update/refresh.ts';
import type { CloneSetLike, CloneSetSpecLike } from '../../src/core/types.ts';
import { CS_UID, NOW, cloneSet, pod, revision, seededRandom, templateWithImage } from './fixtures.ts';

describe('planReconcile: every action says which step planned it', () => {
  it('scale-out from nothing: a revision (revisions step), then creates (scale step)', () => {
    const plan = planReconcile({ cs: cloneSet({ replicas: 3 }), pods: [], pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(1) });
    expect(plan.actions.map((a) => `${a.step}:${a.kind}`)).toEqual(['revisions:createRevision', 'scale:createPod', 'scale:createPod', 'scale:createPod']);
  });
});

describe('planReconcileStages: the pass in stages, the shell free to give the event loop a turn between two', () => {
  const stagesOf = (input: ReconcileInput): { yields: number; plan: ReturnType<typeof planReconcile> } => {
    const stages = planReconcileStages(input);
    let yields = 0;
    for (;;) {
      const next = stages.next();
      if (next.done) return { yields, plan: next.value };
      yields++;
    }
  };
  const input = (cs: CloneSetLike, pods: V1Pod[]): ReconcileInput => ({ cs, pods, pvcs: [], revisions: revisions(cs), gates: {}, nowMs: NOW, random: seededRandom(1) });
  const rolling = (replicas = 1, extra: Partial<CloneSetLike> = {}) => cloneSet({ replicas }, { status: { currentRevision: 'cs-old' }, ...extra });
  const oldPods = (n = 1) => Array.from({ length: n }, () => pod({ rev: 'cs-old', state: 'Normal', labels: { [POD_TEMPLATE_HASH_LABEL]: 'old' } }));
  const newPod = () => [pod({ rev: 'cs-new', state: 'Normal', labels: { [POD_TEMPLATE_HASH_LABEL]: 'new' } })];
  const many = REFRESH_PODS_PER_STAGE + 1;

  it.each<[string, string, CloneSetLike, () => V1Pod[]]>([
    ['Update ran and chose a pod to re-create', 'claim and revisions | scale diffs | scale | refresh | diffs | order | choice and writes | recreate deletes: scale diffs | their deletes | holds, undos and clean-ups', rolling(), oldPods],
    ['Update ran, nothing to update', 'claim and revisions | scale diffs | scale | refresh | diffs | holds, undos and clean-ups', rolling(), newPod],
    [`refresh of ${many} pods, in two stages`, 'claim and revisions | scale diffs | scale | refresh | refresh | diffs | order | choice and writes | recreate deletes: scale diffs | their deletes | holds, undos and clean-ups', rolling(many), () => oldPods(many)],
    ['Scale wrote, Update skipped', 'claim and revisions | scale diffs | scale | holds, undos and clean-ups', rolling(2), oldPods],
    ['the CloneSet is being deleted', 'claim and revisions | the rest', rolling(1, { metadata: { name: 'cs', namespace: 'ns', uid: CS_UID, deletionTimestamp: new Date(NOW) } }), oldPods],
  ])('%s: %s', (_, stages, cs, podsOf) => {
    const pods = podsOf();
    const staged = stagesOf(input(cs, pods));
    expect(staged.yields).toBe(stages.split(' | ').length - 1);
    // The same input plans the same pass whether it runs in stages or at once (the context
    // aside: it holds the input's random function, a new one per input).
    const { context: _staged, ...fromStages } = staged.plan;
    const { context: _whole, ...atOnce } = planReconcile(input(cs, pods));
    expect(fromStages).toEqual(atOnce);
  });

  it(`refresh counts only the pods it reads: ${many} cached pod versions it found nothing to do for take no refresh stage of their own`, () => {
    const cs = rolling(many);
    const cached = Array.from({ length: many }, () => deepFreeze(newPod()[0]!) as V1Pod);
    const settled = 'claim and revisions | scale diffs | scale | refresh | diffs | holds, undos and clean-ups';
    expect(stagesOf(input(cs, cached)).yields).toBe(settled.replace('refresh', 'refresh | refresh').split(' | ').length - 1);
    expect(stagesOf(input(cs, cached)).yields).toBe(settled.split(' | ').length - 1);
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
      sync: 'scale',
      scaleDiffs: expect.objectContaining({ scaleDownNum: 1, scaleUpNum: 0 }),
      actions: { createRevision: 1, 'deletePod:ScaleIn': 1 },
    });
    expect(line).not.toHaveProperty('updateDiffs');
  });
});

/** cs-old (nginx:0) and cs-new (the spec template). */
const revisions = (cs: CloneSetLike) => [revision('cs-old', 1, templateWithImage('nginx:0')), revision('cs-new', 2, cs.spec.template)];

describe('planReconcile: which sync step ran, with the diffs it decided from', () => {
  const plan = (cs: CloneSetLike, pods: V1Pod[]) =>
    planReconcile({ cs, pods, pvcs: [], revisions: revisions(cs), gates: {}, nowMs: NOW, random: seededRandom(1) });
  const rolling = (spec: Partial<CloneSetSpecLike> = {}, extra: Partial<CloneSetLike> = {}) =>
    cloneSet({ replicas: 1, ...spec }, { status: { currentRevision: 'cs-old' }, ...extra });
  // Labelled as refresh leaves it (state and hash), so refresh writes nothing unless a case says so.
  const oldPod = (state = 'Normal') => [pod({ rev: 'cs-old', state, labels: { [POD_TEMPLATE_HASH_LABEL]: 'old' } })];

  it.each<[string, CloneSetLike, () => V1Pod[], SyncStep]>([
    ['scale wrote (creates): update skipped', rolling({ replicas: 2 }), oldPod, { step: 'scale', scaleDiffs: expect.objectContaining({ scaleUpNum: 1 }) }],
    [
      'scale had nothing to write: update ran with its diffs',
      rolling(),
      oldPod,
      { step: 'update', scaleDiffs: expect.objectContaining({ scaleUpNum: 0, scaleDownNum: 0 }), update: { diffs: expect.objectContaining({ updateNum: 1 }) } },
    ],
    ['update paused: ran, stopped before its diffs', rolling({ updateStrategy: { paused: true } }), oldPod, { step: 'update', scaleDiffs: expect.anything(), update: { stoppedBy: 'paused' } }],
    ['OnDelete: ran, stopped before its diffs', rolling({ updateStrategy: { type: 'OnDelete' } }), oldPod, { step: 'update', scaleDiffs: expect.anything(), update: { stoppedBy: 'onDelete' } }],
    [
      'refresh wrote a state label: update stopped before its diffs',
      rolling(),
      () => oldPod('PreparingNormal'),
      { step: 'update', scaleDiffs: expect.anything(), update: { stoppedBy: 'refresh' } },
    ],
    ['the CloneSet is being deleted: neither step ran', rolling({}, { metadata: { name: 'cs', namespace: 'ns', uid: CS_UID, deletionTimestamp: new Date(NOW) } }), oldPod, { step: 'none', reason: 'deleting' }],
  ])('%s', (_name, cs, pods, want) => {
    expect(plan(cs, pods()).sync).toStrictEqual(want);
  });

  it('the debug line names the step and carries exactly the diffs of the steps that ran', () => {
    const scaled = describePlan(plan(rolling({ replicas: 2 }), oldPod()));
    expect(scaled).toMatchObject({ sync: 'scale', scaleDiffs: expect.objectContaining({ scaleUpNum: 1 }) });
    expect(scaled).not.toHaveProperty('updateDiffs');
    expect(describePlan(plan(rolling(), oldPod()))).toMatchObject({ sync: 'update', scaleDiffs: expect.anything(), updateDiffs: expect.objectContaining({ updateNum: 1 }) });
    const paused = describePlan(plan(rolling({ updateStrategy: { paused: true } }), oldPod()));
    expect(paused).toMatchObject({ sync: 'update', updateStoppedBy: 'paused' });
    expect(paused).not.toHaveProperty('updateDiffs');
    const deleting = describePlan(plan(rolling({}, { metadata: { name: 'cs', namespace: 'ns', uid: CS_UID, deletionTimestamp: new Date(NOW) } }), oldPod()));
    expect(deleting).toMatchObject({ sync: 'none' });
    expect(deleting).not.toHaveProperty('scaleDiffs');
  });
});

describe('invariant: the sync step and the actions agree', () => {
  // Weighted towards settled pods and replicas matching them, so Update runs often, not only Scale.
  const podArb = fc.record({
    rev: fc.constantFrom('cs-old', 'cs-new'),
    state: fc.constantFrom('Normal', 'Normal', 'Normal', 'Updating', 'PreparingNormal', 'PreparingDelete'),
    ready: fc.constantFrom(true, true, false),
    sd: fc.constantFrom(false, false, false, true),
  });
  const csArb = fc.record({
    replicasOff: fc.constantFrom(-1, 0, 0, 0, 1),
    type: fc.constantFrom('ReCreate', 'InPlaceIfPossible', 'OnDelete'),
    paused: fc.boolean(),
    deleting: fc.constantFrom(false, false, false, true),
  });

  it('Update-step actions only when Update ran; when it ran, Scale-step actions are only undos and deletes of the pods it marked; neither step while deleting', () => {
    fc.assert(
      fc.property(fc.array(podArb, { maxLength: 6 }), csArb, (specs, o) => {
        const pods = specs.map((s, i) => pod({ id: `p${i}`, rev: s.rev, state: s.state, ready: s.ready, sd: s.sd, labels: { [POD_TEMPLATE_HASH_LABEL]: s.rev } }));
        const metadata = { name: 'cs', namespace: 'ns', uid: CS_UID, ...(o.deleting ? { deletionTimestamp: new Date(NOW) } : {}) };
        const cs = cloneSet({ replicas: Math.max(0, pods.length + o.replicasOff), template: templateWithImage('nginx:1'), updateStrategy: { type: o.type, paused: o.paused } }, { metadata, status: { currentRevision: 'cs-old' } });
        const { sync, actions } = planReconcile({ cs, pods, pvcs: [], revisions: revisions(cs), gates: {}, nowMs: NOW, random: seededRandom(1) });
        expect(sync.step === 'none').toBe(o.deleting);
        if (sync.step !== 'update') expect(actions.filter((a) => a.step === 'update')).toEqual([]);
        if (sync.step === 'update') {
          const marked = new Set(actions.flatMap((a) => (a.kind === 'patchPod' && a.reason === 'RecreateUpdate' ? [a.name] : [])));
          const early = (a: (typeof actions)[number]) => a.kind === 'deletePod' && a.reason === 'SpecifiedDelete' && marked.has(a.name);
          expect(actions.filter((a) => a.step === 'scale' && a.kind !== 'undoOperation' && !early(a))).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
