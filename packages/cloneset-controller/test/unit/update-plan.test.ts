import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import type { InPlaceUpdateAction, PatchPodAction, PlanAction, SetPodConditionsAction } from '../../src/core/plan.ts';
import { planUpdate } from '../../src/core/update/update-plan.ts';
import { nextLifecycleState, refreshPod } from '../../src/core/update/refresh.ts';
import { inPlaceDiff } from '../../src/core/update/inplace.ts';
import { isInPlaceUpdateComplete, normaliseImage } from '../../src/core/update/inplace-state.ts';
import { NOW, cloneSet, ctxFor, pod, revision, seededRandom, templateWithImage, type PodOpts } from './fixtures.ts';
import { buildContext } from '../../src/core/context.ts';
import type { CloneSetSpecLike } from '../../src/core/types.ts';

const kinds = (a: PlanAction[]) => a.map((x) => x.kind);
const marks = (a: PlanAction[]) => a.filter((x): x is PatchPodAction => x.kind === 'patchPod' && x.reason === 'RecreateUpdate').map((x) => x.name);
const inplace = (a: PlanAction[]) => a.filter((x): x is InPlaceUpdateAction => x.kind === 'inPlaceUpdate');
const conds = (a: PlanAction[]) => a.filter((x): x is SetPodConditionsAction => x.kind === 'setPodConditions');
const oldN: PodOpts = { rev: 'cs-old', state: 'Normal', labels: { 'pod-template-hash': 'old' } };
const newN: PodOpts = { rev: 'cs-new', state: 'Normal', labels: { 'pod-template-hash': 'new' } };
const olds = (n: number, o: PodOpts = {}) => Array.from({ length: n }, () => pod({ ...oldN, ...o }));
const withGates = (p: V1Pod, ...types: string[]) => {
  p.spec!.readinessGates = types.map((conditionType) => ({ conditionType }));
  return p;
};
const cs = (spec: Partial<CloneSetSpecLike> = {}) => cloneSet({ replicas: 5, ...spec });

describe('inPlaceDiff', () => {
  it.each([
    ['image only', templateWithImage('nginx:0'), templateWithImage('nginx:1'), { main: 'nginx:1' }],
    ['metadata only', templateWithImage('nginx:1'), { ...templateWithImage('nginx:1'), metadata: { labels: { app: 'demo', x: 'y' } } }, {}],
    ['env change', templateWithImage('nginx:1'), templateWithImage('nginx:1', { env: [{ name: 'A', value: 'b' }] }), undefined],
    ['container added', templateWithImage('nginx:1'), { spec: { containers: [{ name: 'main', image: 'nginx:1' }, { name: 's', image: 's' }] } }, undefined],
  ])('%s', (_n, from, to, images) => {
    const d = inPlaceDiff(from, to);
    if (images === undefined) expect(d).toBeUndefined();
    else expect(d?.images).toEqual(images);
  });

  it('metadata changes become a merge patch', () => {
    const d = inPlaceDiff({ metadata: { labels: { a: '1', gone: 'x' } } }, { metadata: { labels: { a: '2' } } });
    expect(d?.labels).toEqual({ a: '2', gone: null });
  });
});

describe('recreate marks announce themselves', () => {
  it('each mark carries SuccessfulUpdatePodReCreate on success and FailedUpdatePodReCreate on failure, naming pod and revision', () => {
    const ps = olds(2);
    const plan = planUpdate(ctxFor(cs({ replicas: 2, updateStrategy: { maxUnavailable: 2 } }), ps));
    const marked = plan.actions.filter((x): x is PatchPodAction => x.kind === 'patchPod' && x.reason === 'RecreateUpdate');
    expect(marked).toHaveLength(2);
    for (const m of marked) {
      expect(m.outcome).toEqual({
        success: { type: 'Normal', reason: 'SuccessfulUpdatePodReCreate', message: `successfully patch pod ${m.name} specified-delete for update(revision cs-new)` },
        failure: { type: 'Warning', reason: 'FailedUpdatePodReCreate', message: `failed to patch pod ${m.name} specified-delete for update(revision cs-new)` },
      });
    }
  });
});

describe('planUpdate: selection', () => {
  it('ReCreate marks pods specified-delete within updateMaxUnavailable', () => {
    const plan = planUpdate(ctxFor(cs({ updateStrategy: { partition: 3, maxUnavailable: 1 } }), olds(5)));
    expect(marks(plan.actions)).toHaveLength(1);
    const plan2 = planUpdate(ctxFor(cs({ updateStrategy: { partition: 0, maxUnavailable: 3 } }), olds(5)));
    expect(marks(plan2.actions)).toHaveLength(3);
  });

  it('updating an already-unavailable pod costs no total budget, but counts toward the target budget', () => {
    const ps = [...olds(3), pod({ ...oldN, ready: false })];
    const plan = planUpdate(ctxFor(cloneSet({ replicas: 4, updateStrategy: { maxUnavailable: 2 } }), ps));
    // unavail=1: the not-ready pod first (k=1), then one available pod (unavail 2), then stop.
    expect(marks(plan.actions)).toEqual([ps[3]!.metadata!.name, expect.any(String)]);
  });

  it('never exceeds replicas - partition at the update revision', () => {
    const ps = [...olds(2), pod(newN), pod(newN), pod(newN)];
    const plan = planUpdate(ctxFor(cs({ updateStrategy: { partition: 2, maxUnavailable: 5 } }), ps));
    expect(marks(plan.actions)).toEqual([]);
  });

  it.each([
    ['paused', { paused: true }],
    ['OnDelete', { type: 'OnDelete' }],
  ])('%s: refresh only, no update', (_n, strategy) => {
    const plan = planUpdate(ctxFor(cs({ updateStrategy: { maxUnavailable: 5, ...strategy } }), olds(5)));
    expect(marks(plan.actions)).toEqual([]);
    expect(inplace(plan.actions)).toEqual([]);
  });

  it('never updates a PreparingDelete pod', () => {
    const ps = [pod({ ...oldN, state: 'PreparingDelete' }), ...olds(1)];
    const plan = planUpdate(ctxFor(cloneSet({ replicas: 2, updateStrategy: { maxUnavailable: 5 } }), ps));
    expect(marks(plan.actions)).toEqual([ps[1]!.metadata!.name]);
  });

  it('partition rollback (gate on) moves new pods back to the current revision', () => {
    const ps = [pod(newN), pod(newN), pod(oldN)];
    const plan = planUpdate(
      ctxFor(cloneSet({ replicas: 3, updateStrategy: { partition: 3, maxUnavailable: 3 } }), ps, { gates: { CloneSetPartitionRollback: true } }),
    );
    expect(marks(plan.actions).sort()).toEqual([ps[0]!.metadata!.name, ps[1]!.metadata!.name].sort());
    const off = planUpdate(ctxFor(cloneSet({ replicas: 3, updateStrategy: { partition: 3, maxUnavailable: 3 } }), ps));
    expect(marks(off.actions)).toEqual([]);
  });
});

describe('planUpdate: in-place', () => {
  it('InPlaceIfPossible image change: InPlaceUpdateReady False first, then one update with state', () => {
    const p = withGates(pod(oldN), 'InPlaceUpdateReady', 'KruisePodReady');
    p.status!.conditions!.push({ type: 'InPlaceUpdateReady', status: 'True' }, { type: 'KruisePodReady', status: 'True' });
    const plan = planUpdate(ctxFor(cloneSet({ replicas: 1, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }), [p]));
    expect(kinds(plan.actions)).toEqual(['setPodConditions', 'inPlaceUpdate']);
    expect(conds(plan.actions)[0]!.conditions).toEqual([{ type: 'InPlaceUpdateReady', status: 'False', reason: 'StartInPlaceUpdate' }]);
    const u = inplace(plan.actions)[0]!;
    expect(u.images).toEqual({ main: 'nginx:1' });
    expect(u.labels).toMatchObject({ 'controller-revision-hash': 'cs-new', 'pod-template-hash': 'new', 'lifecycle.apps.kruise.io/state': 'Updating' });
    expect(JSON.parse(u.annotations['apps.kruise.io/inplace-update-state']!)).toEqual({
      revision: 'cs-new',
      updateTimestamp: '2026-01-01T00:10:00Z',
      updateImages: true,
      lastContainerStatuses: { main: { imageID: 'sha-1' } },
      containerBatchesRecord: [{ timestamp: '2026-01-01T00:10:00Z', containers: ['main'] }],
    });
  });

  it('InPlaceIfPossible falls back to recreate for a non-in-place change', () => {
    const spec = { replicas: 1, template: templateWithImage('nginx:1', { env: [{ name: 'A', value: 'b' }] }), updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } };
    const plan = planUpdate(ctxFor(cloneSet(spec), [pod(oldN)]));
    expect(marks(plan.actions)).toHaveLength(1);
  });

  it('InPlaceOnly never recreates: FailedUpdate error instead', () => {
    const spec = { replicas: 1, template: templateWithImage('nginx:1', { env: [{ name: 'A', value: 'b' }] }), updateStrategy: { type: 'InPlaceOnly', maxUnavailable: 1 } };
    const plan = planUpdate(ctxFor(cloneSet(spec), [pod(oldN)]));
    expect(marks(plan.actions)).toEqual([]);
    expect(plan.errors).toEqual([{ condition: 'FailedUpdate', message: expect.stringContaining('InPlaceOnly but can not update in-place') }]);
  });

  it('InPlaceOnly refusal is also a Warning event, not only a condition (found on the cluster)', () => {
    const spec = { replicas: 1, template: templateWithImage('nginx:1', { env: [{ name: 'A', value: 'b' }] }), updateStrategy: { type: 'InPlaceOnly', maxUnavailable: 1 } };
    const plan = planUpdate(ctxFor(cloneSet(spec), [pod(oldN)]));
    expect(plan.actions.filter((a) => a.kind === 'event')).toEqual([
      { kind: 'event', type: 'Warning', reason: 'FailedUpdatePodInPlace', message: expect.stringContaining('InPlaceOnly but can not update in-place') },
    ]);
  });

  it('gracePeriodSeconds defers the images into the grace annotation and requeues', () => {
    const spec = { replicas: 1, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1, inPlaceUpdateStrategy: { gracePeriodSeconds: 10 } } };
    const plan = planUpdate(ctxFor(cloneSet(spec), [pod(oldN)]));
    const u = inplace(plan.actions)[0]!;
    expect(u.images).toEqual({});
    expect(JSON.parse(u.annotations['apps.kruise.io/inplace-update-grace']!)).toEqual({ revision: 'cs-new', containerImages: { main: 'nginx:1' }, graceSeconds: 10 });
    expect(plan.requeueAfterMs).toBe(10_000);
  });

  it('a hooked pod goes to PreparingUpdate first (markPodNotReady adds preUpdateHook)', () => {
    const lifecycle = { inPlaceUpdate: { labelsHandler: { gate: 'on' }, markPodNotReady: true } };
    const p = withGates(pod({ ...oldN, labels: { ...oldN.labels, gate: 'on' } }), 'KruisePodReady');
    p.status!.conditions!.push({ type: 'KruisePodReady', status: 'True' });
    const plan = planUpdate(ctxFor(cloneSet({ replicas: 1, lifecycle, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }), [p]));
    expect(kinds(plan.actions)).toEqual(['setPodConditions', 'patchPod']);
    expect(conds(plan.actions)[0]!.conditions[0]).toMatchObject({ type: 'KruisePodReady', status: 'False' });
    expect((plan.actions[1] as PatchPodAction).lifecycle).toEqual({ from: 'Normal', to: 'PreparingUpdate' });
  });

  it('PreparingUpdate: waits while hooked; once released updates and clears preUpdateHook (fix 4)', () => {
    const lifecycle = { inPlaceUpdate: { labelsHandler: { gate: 'on' }, markPodNotReady: true } };
    const spec = { replicas: 1, lifecycle, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } };
    const held = pod({ ...oldN, state: 'PreparingUpdate', labels: { ...oldN.labels, gate: 'on' } });
    expect(planUpdate(ctxFor(cloneSet(spec), [held])).actions).toEqual([]);
    const released = withGates(pod({ ...oldN, state: 'PreparingUpdate' }), 'KruisePodReady');
    released.status!.conditions!.push({ type: 'KruisePodReady', status: 'False', message: '[{"userAgent":"Lifecycle","key":"preUpdateHook"}]' });
    const plan = planUpdate(ctxFor(cloneSet(spec), [released]));
    expect(kinds(plan.actions)).toEqual(['setPodConditions', 'inPlaceUpdate']);
    expect(conds(plan.actions)[0]!.conditions).toEqual([{ type: 'KruisePodReady', status: 'True' }]);
  });

  it('an Updated pod chosen again gets the hook re-applied and goes to PreparingUpdate', () => {
    const lifecycle = { inPlaceUpdate: { labelsHandler: { gate: 'on' }, finalizersHandler: ['x/f'] } };
    const p = pod({ ...oldN, state: 'Updated' });
    const plan = planUpdate(ctxFor(cloneSet({ replicas: 1, lifecycle, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }), [p]));
    expect(plan.actions).toEqual([
      expect.objectContaining({ kind: 'patchPod', labels: expect.objectContaining({ gate: 'on', 'lifecycle.apps.kruise.io/state': 'PreparingUpdate' }), addFinalizers: ['x/f'] }),
    ]);
  });
});

describe('refresh and lifecycle', () => {
  const ctx = (spec: Partial<CloneSetSpecLike>, ps: V1Pod[]) => ctxFor(cloneSet({ replicas: ps.length, ...spec }), ps);

  it('a new pod: both gates set True, PreparingNormal -> Normal once scheduled', () => {
    const p = withGates(pod({ ...newN, state: 'PreparingNormal' }), 'InPlaceUpdateReady', 'KruisePodReady');
    const r = refreshPod(ctx({}, [p]), p);
    expect(r.actions[0]).toMatchObject({
      kind: 'setPodConditions',
      name: p.metadata!.name,
      conditions: [{ type: 'InPlaceUpdateReady', status: 'True' }, { type: 'KruisePodReady', status: 'True' }],
    });
    expect((r.actions[1] as PatchPodAction).lifecycle).toEqual({ from: 'PreparingNormal', to: 'Normal' });
    expect(r.labelPatched).toBe(true);
    const unscheduled = pod({ ...newN, state: 'PreparingNormal', node: '' });
    expect(nextLifecycleState(ctx({}, [unscheduled]), unscheduled, true)).toBeUndefined();
  });

  it('preNormal hook: Normal only when all-hooked', () => {
    const lifecycle = { preNormal: { labelsHandler: { a: '1', b: '2' } } };
    const some = pod({ ...newN, state: 'PreparingNormal', labels: { a: '1' } });
    const all = pod({ ...newN, state: 'PreparingNormal', labels: { a: '1', b: '2' } });
    const c = ctx({ lifecycle }, [some, all]);
    expect(nextLifecycleState(c, some, true)).toBeUndefined();
    expect(nextLifecycleState(c, all, true)).toBe('Normal');
  });

  it.each([
    ['Updating complete, no lifecycle', 'Updating', undefined, true, 'Normal'],
    ['Updating complete, lifecycle without inPlaceUpdate', 'Updating', {}, true, 'Updated'],
    ['Updating incomplete', 'Updating', undefined, false, undefined],
    ['Updated, no hook', 'Updated', {}, true, 'Normal'],
    ['Updated, hook not re-added', 'Updated', { inPlaceUpdate: { labelsHandler: { g: '1' } } }, true, undefined],
    ['Normal stays', 'Normal', undefined, true, undefined],
  ])('%s', (_n, state, lifecycle, complete, want) => {
    const p = pod({ ...newN, state });
    expect(nextLifecycleState(ctx(lifecycle ? { lifecycle } : {}, [p]), p, complete)).toBe(want);
  });

  it('PreparingUpdate rolled back (pod at updateRevision) leaves and clears preUpdateHook (fix 4, #1156)', () => {
    const lifecycle = { inPlaceUpdate: { labelsHandler: { g: '1' }, markPodNotReady: true } };
    const p = withGates(pod({ ...newN, state: 'PreparingUpdate', labels: { ...newN.labels, g: '1' } }), 'KruisePodReady');
    p.status!.conditions!.push({ type: 'KruisePodReady', status: 'False', message: '[{"userAgent":"Lifecycle","key":"preUpdateHook"}]' });
    const r = refreshPod(ctx({ lifecycle }, [p]), p);
    expect(r.actions[0]).toMatchObject({ kind: 'setPodConditions', conditions: [{ type: 'KruisePodReady', status: 'True' }] });
    expect((r.actions[1] as PatchPodAction).lifecycle).toEqual({ from: 'PreparingUpdate', to: 'Normal' });
  });

  it('completion: imageID changed or image equals spec (":latest" default)', () => {
    expect(normaliseImage('nginx')).toBe('nginx:latest');
    expect(normaliseImage('reg:5000/nginx')).toBe('reg:5000/nginx:latest');
    const p = pod({ ...newN, state: 'Updating' });
    p.metadata!.annotations!['apps.kruise.io/inplace-update-state'] = JSON.stringify({ revision: 'cs-new', updateTimestamp: '', lastContainerStatuses: { main: { imageID: 'sha-1' } } });
    p.spec!.containers[0]!.image = 'nginx:2';
    expect(isInPlaceUpdateComplete(p)).toBe(false);
    p.status!.containerStatuses![0]!.imageID = 'sha-2';
    expect(isInPlaceUpdateComplete(p)).toBe(true);
    p.status!.containerStatuses![0]!.imageID = 'sha-1';
    p.status!.containerStatuses![0]!.image = 'docker.io/library/nginx:2';
    expect(isInPlaceUpdateComplete(p)).toBe(false);
    p.status!.containerStatuses![0]!.image = 'nginx:2';
    expect(isInPlaceUpdateComplete(p)).toBe(true);
  });

  it('grace period: waits, then applies; a rollback during grace drops it', () => {
    const mk = (rev: string, sinceSec: number) => {
      const p = pod({ ...newN, rev, state: 'Updating' });
      p.metadata!.annotations!['apps.kruise.io/inplace-update-state'] = JSON.stringify({ revision: 'cs-new', updateTimestamp: new Date(NOW - sinceSec * 1000).toISOString() });
      p.metadata!.annotations!['apps.kruise.io/inplace-update-grace'] = JSON.stringify({ revision: 'cs-new', containerImages: { main: 'nginx:1' }, graceSeconds: 10 });
      return p;
    };
    // The stamp has whole seconds: it is read as the end of its second, so the wait is never short.
    const waiting = mk('cs-new', 3);
    expect(refreshPod(ctx({}, [waiting]), waiting)).toMatchObject({ actions: [], requeueMs: 8000 });
    const boundary = mk('cs-new', 10);
    expect(refreshPod(ctx({}, [boundary]), boundary)).toMatchObject({ actions: [], requeueMs: 1000 });
    const due = mk('cs-new', 11);
    const applied = refreshPod(ctx({}, [due]), due).actions[0] as InPlaceUpdateAction;
    expect(applied).toMatchObject({ kind: 'inPlaceUpdate', images: { main: 'nginx:1' }, annotations: { 'apps.kruise.io/inplace-update-grace': null } });
    const rolledBack = mk('cs-old', 3);
    expect(refreshPod(ctx({}, [rolledBack]), rolledBack).actions[0]).toMatchObject({ kind: 'patchPod', reason: 'DropInPlaceGrace' });
  });

  describe('the update revision changes during the grace period (kruise #418)', () => {
    // cs-a (nginx:1.25) -> cs-b (nginx:1.26, deferred by a 10 s grace) -> reverted to cs-a.
    const revA = revision('cs-a', 1, templateWithImage('nginx:1.25'));
    const revB = revision('cs-b', 2, templateWithImage('nginx:1.26'));
    const graced = (sinceSec: number) => {
      const p = pod({ rev: 'cs-b', state: 'Updating', labels: { 'pod-template-hash': 'b' } });
      p.spec!.containers[0]!.image = 'nginx:1.25';
      p.spec!.readinessGates = [{ conditionType: 'InPlaceUpdateReady' }];
      p.status!.conditions!.push({ type: 'InPlaceUpdateReady', status: 'False', reason: 'StartInPlaceUpdate' });
      p.metadata!.annotations!['apps.kruise.io/inplace-update-state'] = JSON.stringify({ revision: 'cs-b', updateTimestamp: new Date(NOW - sinceSec * 1000).toISOString() });
      p.metadata!.annotations!['apps.kruise.io/inplace-update-grace'] = JSON.stringify({ revision: 'cs-b', containerImages: { main: 'nginx:1.26' }, graceSeconds: 10 });
      return p;
    };
    const reverted = (p: V1Pod, current = revA) =>
      buildContext({
        cs: cloneSet({ replicas: 1, template: templateWithImage('nginx:1.25'), updateStrategy: { type: 'InPlaceIfPossible', inPlaceUpdateStrategy: { gracePeriodSeconds: 10 } } }),
        gates: {},
        nowMs: NOW,
        random: seededRandom(1),
        pods: [p],
        allPods: [p],
        pvcs: [],
        revisions: [revA, revB],
        currentRevision: current,
        updateRevision: revA,
      });

    it.each([
      ['2 s into the grace', 2, revA],
      ['after the grace would have ended', 11, revA],
      // One replica: the pod labelled cs-b made cs-b the current revision before the revert.
      ['the grace revision had become the current one', 11, revB],
    ])('%s: the pending image is dropped and the pod settles at the new target without an image change', (_n, sinceSec, current) => {
      const p = graced(sinceSec);
      const r = refreshPod(reverted(p, current), p);
      const writes = inplace(r.actions);
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatchObject({ kind: 'inPlaceUpdate', revision: 'cs-a', images: {}, labels: { 'controller-revision-hash': 'cs-a' }, annotations: { 'apps.kruise.io/inplace-update-grace': null } });
      expect(JSON.stringify(r.actions)).not.toContain('nginx:1.26');
      expect(JSON.parse(writes[0]!.annotations['apps.kruise.io/inplace-update-state']!)).toMatchObject({ revision: 'cs-a' });
    });

    it.each([
      ['its images are of another revision', 'nginx:1.24', revA],
      // cs-b is current (one replica) but not a target: the pod must not be declared at cs-b with cs-a's image.
      ['a third revision while the grace revision is current', 'nginx:1.24', revB],
    ])('a pod whose spec does not match the new target only loses the grace (%s)', (_n, image, current) => {
      const p = graced(2);
      p.spec!.containers[0]!.image = image;
      const r = refreshPod(reverted(p, current), p);
      expect(r.actions[0]).toMatchObject({ kind: 'patchPod', reason: 'DropInPlaceGrace', annotations: { 'apps.kruise.io/inplace-update-grace': null } });
      expect(inplace(r.actions)).toEqual([]);
    });
  });

  it('inplace-update-state: one containerBatchesRecord entry per spec patch', () => {
    const now = planUpdate(ctxFor(cs({ replicas: 1, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }), olds(1)));
    const state = JSON.parse(inplace(now.actions)[0]!.annotations['apps.kruise.io/inplace-update-state']!);
    expect(state.containerBatchesRecord).toEqual([{ timestamp: '2026-01-01T00:10:00Z', containers: ['main'] }]);
    // Deferred by a grace period: no batch yet; the record is written when the spec is patched.
    const deferred = planUpdate(ctxFor(cs({ replicas: 1, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1, inPlaceUpdateStrategy: { gracePeriodSeconds: 5 } } }), olds(1)));
    expect(JSON.parse(inplace(deferred.actions)[0]!.annotations['apps.kruise.io/inplace-update-state']!).containerBatchesRecord).toBeUndefined();
    const p = pod({ ...newN, state: 'Updating' });
    p.metadata!.annotations!['apps.kruise.io/inplace-update-state'] = JSON.stringify({ revision: 'cs-new', updateTimestamp: new Date(NOW - 20_000).toISOString() });
    p.metadata!.annotations!['apps.kruise.io/inplace-update-grace'] = JSON.stringify({ revision: 'cs-new', containerImages: { main: 'nginx:1' }, graceSeconds: 5 });
    const applied = inplace(refreshPod(ctxFor(cs({ replicas: 1 }), [p]), p).actions)[0]!;
    expect(JSON.parse(applied.annotations['apps.kruise.io/inplace-update-state']!).containerBatchesRecord).toEqual([{ timestamp: '2026-01-01T00:10:00Z', containers: ['main'] }]);
  });

  it('back-fills pod-template-hash, and a label patch ends the Update step', () => {
    const p = pod({ rev: 'cs-old', state: 'Normal' });
    const plan = planUpdate(ctxFor(cloneSet({ replicas: 1, updateStrategy: { maxUnavailable: 1 } }), [p]));
    expect(plan.actions).toEqual([{ kind: 'patchPod', name: p.metadata!.name, reason: 'BackfillTemplateHash', labels: { 'pod-template-hash': 'old' } }]);
  });
});
