// CloneSet meets PodOpsLifecycle (README, CloneSet under PodOpsLifecycle): the planners' decisions for controlled pods as
// action lists, the undo of pods that leave the plan, availability, and the safety invariant.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { KUSION_CONTROL_LABEL, POL_LABELS } from '@cloneset-suite/api-types';
import { CLONESET_OPERATION_ANNOTATION, cloneSetLifecycle, type CloneSetOperation } from '../../src/core/lifecycle/begun-operation.ts';
import { scaleDiffs, updateDiffs } from '../../src/core/update/step-diffs.ts';
import { ownOperation } from '../../src/core/lifecycle/ops-lifecycle.ts';
import type { PlanAction, PlannedAction } from '../../src/core/plan.ts';
import { podName } from '../../src/core/pods/pod-state.ts';
import { planScale } from '../../src/core/scale/scale-plan.ts';
import { computeStatus } from '../../src/core/status/status.ts';
import type { CloneSetSpecLike } from '../../src/core/types.ts';
import { planUpdate } from '../../src/core/update/update-plan.ts';
import { planOperationWrite } from '../../src/reconciler/actions/operation-writes.ts';
import { NOW, cloneSet, ctxFor, pod, reconcileWith, templateWithImage, type PodOpts } from './fixtures.ts';
import { HOLD_REASONS, isHold } from '../../src/core/wait.ts';
import { waitMessage } from '../../src/core/waits/wait-text.ts';

const TS = '1767225600000000000';
const CONTROL = { [KUSION_CONTROL_LABEL]: 'true', [POL_LABELS.serviceAvailable]: TS };
const OPERATE = 'operate.podopslifecycle.kusionstack.io/cloneset';
const TYPE = 'operation-type.podopslifecycle.kusionstack.io/cloneset';
const PROT = 'prot.podopslifecycle.kusionstack.io/traffic';
const SCALE_IN: CloneSetOperation = { type: 'scale-in', deletesPod: true };
const IN_PLACE: CloneSetOperation = { type: 'update', deletesPod: false };
const RECREATE: CloneSetOperation = { type: 'update', deletesPod: true };

/** The pod as the CloneSet's begin of `op` leaves it: the labels and the record the shell writes. */
function begun(p: V1Pod, op: CloneSetOperation, at = TS): V1Pod {
  const plan = planOperationWrite({ kind: 'beginOperation', name: podName(p), type: op.type, deletesPod: op.deletesPod }, p, at);
  if (!plan.ok) throw new Error(plan.error);
  const annotations = { ...(p.metadata?.annotations ?? {}), ...(typeof plan.write.record === 'string' ? { [CLONESET_OPERATION_ANNOTATION]: plan.write.record } : {}) };
  return { ...p, metadata: { ...p.metadata, labels: { ...(p.metadata?.labels ?? {}), ...plan.write.labels.set }, annotations } };
}
const withLabels = (p: V1Pod, labels: Record<string, string | undefined>): V1Pod => {
  const next: Record<string, string> = { ...(p.metadata?.labels ?? {}) };
  for (const [k, v] of Object.entries(labels)) {
    if (v === undefined) delete next[k];
    else next[k] = v;
  }
  return { ...p, metadata: { ...p.metadata, labels: next } };
};
const granted = (p: V1Pod): V1Pod => withLabels(p, { [OPERATE]: TS });

type Flavour = 'uncontrolled' | 'controlled' | 'waiting' | 'granted' | 'grantedProtected' | 'otherTypeWaiting';

/** A pod in a flavour of the CloneSet's operation `op` (otherTypeWaiting: the other type's). */
function podOf(flavour: Flavour, op: CloneSetOperation, opts: PodOpts): V1Pod {
  const other = op.type === 'update' ? SCALE_IN : IN_PLACE;
  const hash: Record<string, string> = opts.rev === undefined ? {} : { 'pod-template-hash': opts.rev.replace('cs-', '') };
  const base = pod({ ...opts, labels: { ...hash, ...(opts.labels ?? {}), ...(flavour === 'uncontrolled' ? {} : CONTROL) } });
  switch (flavour) {
    case 'uncontrolled':
    case 'controlled':
      return base;
    case 'waiting':
      return begun(base, op);
    case 'granted':
      return granted(begun(base, op));
    case 'grantedProtected': {
      const p = granted(begun(base, op));
      p.metadata!.finalizers = [PROT];
      return p;
    }
    case 'otherTypeWaiting':
      return begun(base, other);
  }
}

/** "kind:name-free detail" per action, the shape the tables compare. */
const shape = (actions: readonly PlanAction[]): string[] =>
  actions.map((a) =>
    a.kind === 'beginOperation'
      ? `${a.kind}:${a.type}${a.deletesPod ? '+delete' : ''}`
      : a.kind === 'undoOperation' || a.kind === 'finishOperation'
        ? `${a.kind}:${a.type}`
        : 'reason' in a && a.kind !== 'event'
          ? `${a.kind}:${a.reason}`
          : a.kind,
  );

describe('scale-in of a controlled pod goes through lifecycle id cloneset, type scale-in', () => {
  it.each<[Flavour, string[]]>([
    ['uncontrolled', ['deletePod:ScaleIn']],
    ['controlled', ['beginOperation:scale-in+delete']],
    ['waiting', []],
    ['granted', ['deletePod:ScaleIn']],
    ['grantedProtected', []],
    ['otherTypeWaiting', ['undoOperation:update']],
  ])('%s -> %j', (flavour, want) => {
    const victim = podOf(flavour, SCALE_IN, { rev: 'cs-new', state: 'Normal', ready: false });
    const keep = pod({ rev: 'cs-new', state: 'Normal' });
    const plan = planScale(ctxFor(cloneSet({ replicas: 1 }), [keep, victim]));
    expect(shape(plan.actions)).toEqual(want);
    if (want.length) expect(plan.actions.every((a) => 'name' in a && a.name === podName(victim))).toBe(true);
  });

  it.each<[Flavour, string[]]>([
    ['uncontrolled', ['deletePod:SpecifiedDelete']],
    ['controlled', ['beginOperation:scale-in+delete']],
    ['waiting', []],
    ['granted', ['deletePod:SpecifiedDelete']],
    ['grantedProtected', []],
  ])('specified delete, %s -> %j', (flavour, want) => {
    const victim = podOf(flavour, SCALE_IN, { rev: 'cs-new', state: 'Normal', sd: true });
    const plan = planScale(ctxFor(cloneSet({ replicas: 2 }), [pod({ rev: 'cs-new', state: 'Normal' }), victim]));
    expect(shape(plan.actions.filter((a) => a.kind !== 'createPod'))).toEqual(want);
  });

  it('the OpenKruise preDelete hook still applies once the lifecycle granted operate', () => {
    const cs = cloneSet({ replicas: 1, lifecycle: { preDelete: { finalizersHandler: ['example.com/hold'] } } });
    const victim = podOf('granted', SCALE_IN, { rev: 'cs-new', state: 'Normal', ready: false });
    victim.metadata!.finalizers = ['example.com/hold'];
    const plan = planScale(ctxFor(cs, [pod({ rev: 'cs-new', state: 'Normal' }), victim]));
    expect(shape(plan.actions)).toEqual(['patchPod:Lifecycle']);
  });

  it('a pod whose scale-in was granted is deleted even when replicas went back up (as Kuperator)', () => {
    const granted = podOf('granted', SCALE_IN, { rev: 'cs-new', state: 'Normal' });
    const plan = planScale(ctxFor(cloneSet({ replicas: 2 }), [pod({ rev: 'cs-new', state: 'Normal' }), granted]));
    expect(shape(plan.actions)).toEqual(['deletePod:ScaleIn']);
  });

  it('keeps its choice: a pod already in scale-in goes first', () => {
    const a = pod({ rev: 'cs-new', state: 'Normal', labels: CONTROL, createdSec: 10 });
    const b = podOf('waiting', SCALE_IN, { rev: 'cs-new', state: 'Normal', createdSec: 9000 });
    const c = pod({ rev: 'cs-new', state: 'Normal', labels: CONTROL, createdSec: 8000 });
    const plan = planScale(ctxFor(cloneSet({ replicas: 2 }), [a, b, c]));
    expect(plan.actions).toEqual([]);
    expect([...(plan.chosen ?? [])]).toEqual([podName(b)]);
  });
});

const inPlaceCs = (spec: Partial<CloneSetSpecLike> = {}) =>
  cloneSet({ replicas: 1, template: templateWithImage('nginx:1'), updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 }, ...spec });

describe('update of a controlled pod goes through lifecycle id cloneset, type update', () => {
  it.each<[Flavour, string[]]>([
    ['uncontrolled', ['inPlaceUpdate']],
    ['controlled', ['beginOperation:update']],
    ['waiting', []],
    ['granted', ['inPlaceUpdate']],
    ['grantedProtected', []],
    ['otherTypeWaiting', []],
  ])('in place, %s -> %j', (flavour, want) => {
    const p = podOf(flavour, IN_PLACE, { rev: 'cs-old', state: 'Normal' });
    expect(shape(planUpdate(ctxFor(inPlaceCs(), [p])).actions)).toEqual(want);
  });

  it.each<[Flavour, string[]]>([
    ['uncontrolled', ['patchPod:RecreateUpdate']],
    ['controlled', ['beginOperation:update+delete']],
    ['waiting', []],
    ['granted', ['patchPod:RecreateUpdate']],
    ['grantedProtected', []],
  ])('recreate, %s -> %j', (flavour, want) => {
    const p = podOf(flavour, RECREATE, { rev: 'cs-old', state: 'Normal' });
    const cs = cloneSet({ replicas: 1, updateStrategy: { type: 'ReCreate', maxUnavailable: 1 } });
    expect(shape(planUpdate(ctxFor(cs, [p])).actions)).toEqual(want);
  });

  it('a granted recreate update is then deleted by the Scale step as a specified delete', () => {
    const p = podOf('granted', RECREATE, { rev: 'cs-old', state: 'Normal', sd: true });
    const plan = planScale(ctxFor(cloneSet({ replicas: 1, updateStrategy: { type: 'ReCreate', maxUnavailable: 1 } }), [p]));
    expect(shape(plan.actions)).toEqual(['deletePod:SpecifiedDelete']);
  });

  it.each<[string, PodOpts, string[]]>([
    ['done: at the update revision, Normal', { rev: 'cs-new', state: 'Normal' }, ['finishOperation:update']],
    ['still updating', { rev: 'cs-new', state: 'Updating' }, []],
    ['not updated yet', { rev: 'cs-old', state: 'Normal' }, ['inPlaceUpdate']],
  ])('finish: %s -> %j', (_, opts, want) => {
    const p = podOf('granted', IN_PLACE, opts);
    const actions = planUpdate(ctxFor(inPlaceCs(), [p])).actions.filter((a) => a.kind !== 'setPodConditions' && a.kind !== 'patchPod');
    expect(shape(actions)).toEqual(want);
  });
});

describe('the begin of an update says whether it deletes the pod (preparing-to-delete at begin)', () => {
  it.each<[string, Partial<CloneSetSpecLike>, string[]]>([
    ['ReCreate', { updateStrategy: { type: 'ReCreate', maxUnavailable: 1 } }, ['beginOperation:update+delete']],
    ['InPlaceIfPossible, an image change', { updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }, ['beginOperation:update']],
    [
      'InPlaceIfPossible, a change that cannot be made in place',
      { template: templateWithImage('nginx:1', { command: ['sleep', '1'] }), updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } },
      ['beginOperation:update+delete'],
    ],
    ['InPlaceOnly, an image change', { updateStrategy: { type: 'InPlaceOnly', maxUnavailable: 1 } }, ['beginOperation:update']],
  ])('%s -> %j', (_, spec, want) => {
    const p = podOf('controlled', IN_PLACE, { rev: 'cs-old', state: 'Normal' });
    expect(shape(planUpdate(ctxFor(inPlaceCs(spec), [p])).actions)).toEqual(want);
  });

  it.each<[Flavour, string[]]>([
    ['waiting', ['undoOperation:update']],
    ['granted', ['undoOperation:update']],
  ])('an update begun in place that must now re-create the pod is begun again, announcing the delete: %s -> %j', (flavour, want) => {
    const p = podOf(flavour, IN_PLACE, { rev: 'cs-old', state: 'Normal' });
    const cs = inPlaceCs({ template: templateWithImage('nginx:1', { command: ['sleep', '1'] }) });
    expect(shape(planUpdate(ctxFor(cs, [p])).actions)).toEqual(want);
    // Undone, it is begun again with the hint.
    const idle = withLabels(p, { 'operating.podopslifecycle.kusionstack.io/cloneset': undefined, [TYPE]: undefined, [OPERATE]: undefined });
    expect(shape(planUpdate(ctxFor(cs, [idle])).actions)).toEqual(['beginOperation:update+delete']);
  });

  it('an update begun to re-create the pod is updated in place when the change became one that can be', () => {
    const p = podOf('granted', RECREATE, { rev: 'cs-old', state: 'Normal' });
    expect(shape(planUpdate(ctxFor(inPlaceCs(), [p])).actions)).toEqual(['inPlaceUpdate']);
  });
});

describe('hand edits of operation-type/cloneset: the CloneSet acts only on the operation it began', () => {
  const reconcile = reconcileWith;
  const onPod = (actions: readonly PlanAction[], name: string) => shape(actions.filter((a) => 'name' in a && a.name === name));
  const edited = (p: V1Pod, type: string | undefined) => withLabels(p, { [TYPE]: type });
  const T1 = '1767225000000000000';
  const OPERATING = 'operating.podopslifecycle.kusionstack.io/cloneset';

  it.each<[string, () => V1Pod, number, string[]]>([
    ['an in-place update, granted, relabelled scale-in: waits', () => edited(podOf('granted', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), 'scale-in'), 1, ['podEvent:OperationTypeMismatch']],
    [
      'an in-place update, not granted, relabelled scale-in: undone',
      () => edited(podOf('waiting', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), 'scale-in'),
      1,
      ['podEvent:OperationTypeMismatch', 'undoOperation:scale-in'],
    ],
    ['an in-place update, granted, relabelled scale-in, replicas lowered: still not deleted', () => edited(podOf('granted', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), 'scale-in'), 0, ['podEvent:OperationTypeMismatch']],
    ['an in-place update, granted, relabelled delete', () => edited(podOf('granted', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), 'delete'), 1, ['podEvent:OperationTypeMismatch']],
    ['an in-place update, granted, its type label removed', () => edited(podOf('granted', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), undefined), 1, ['podEvent:OperationTypeMismatch']],
    ['a scale-in, granted, relabelled update: neither deleted nor updated', () => edited(podOf('granted', SCALE_IN, { name: 'x', rev: 'cs-old', state: 'Normal' }), 'update'), 1, ['podEvent:OperationTypeMismatch']],
    ['a re-creating update, granted, relabelled scale-in', () => edited(podOf('granted', RECREATE, { name: 'x', rev: 'cs-old', state: 'Normal', sd: true }), 'scale-in'), 1, ['podEvent:OperationTypeMismatch']],
    ['relabelled back to what the CloneSet began: acts again', () => edited(edited(podOf('granted', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), 'scale-in'), 'update'), 1, ['inPlaceUpdate']],
    [
      'preparing-to-delete left by an undone scale-in, then an in-place update begun, relabelled scale-in',
      () => edited(granted(begun(withLabels(podOf('controlled', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), { [POL_LABELS.preparingToDelete]: T1 }), IN_PLACE)), 'scale-in'),
      1,
      ['podEvent:OperationTypeMismatch'],
    ],
    [
      'a record of an earlier run, and a scale-in begun by hand since',
      () => withLabels(podOf('granted', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), { [OPERATING]: T1, [TYPE]: 'scale-in' }),
      1,
      ['podEvent:OperationTypeMismatch'],
    ],
    [
      'no record (begun before the CloneSet wrote one): a scale-in without its preparing-to-delete was not begun as one',
      () => granted(podOf('controlled', SCALE_IN, { name: 'x', rev: 'cs-old', state: 'Normal', labels: { [OPERATING]: T1, [TYPE]: 'scale-in' } })),
      1,
      ['podEvent:OperationTypeMismatch'],
    ],
    [
      'no record: a scale-in announced at its begin is the CloneSet\'s, deleted once granted',
      () => granted(podOf('controlled', SCALE_IN, { name: 'x', rev: 'cs-old', state: 'Normal', labels: { [OPERATING]: T1, [TYPE]: 'scale-in', [POL_LABELS.preparingToDelete]: T1 } })),
      1,
      ['deletePod:ScaleIn'],
    ],
  ])('%s', (_, make, others, want) => {
    const x = make();
    const rest = Array.from({ length: others }, (_, i) => podOf('uncontrolled', IN_PLACE, { name: `keep${i}`, rev: 'cs-new', state: 'Normal' }));
    const plan = reconcile(inPlaceCs({ replicas: others + (want.includes('deletePod:ScaleIn') ? 0 : 1) }), [...rest, x]);
    expect(onPod(plan.actions, 'x')).toEqual(want);
  });

  it('the Warning names the label, what it says and what the CloneSet began, and what happens next', () => {
    const waiting = edited(podOf('granted', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), 'scale-in');
    const event = reconcile(inPlaceCs(), [waiting]).actions.find((a) => a.kind === 'podEvent');
    expect(event).toMatchObject({ type: 'Warning', reason: 'OperationTypeMismatch' });
    const message = event && 'message' in event ? event.message : '';
    expect(message).toContain(`label ${TYPE} is "scale-in", but the CloneSet began an in-place update ("update") on this pod`);
    expect(message).toContain('neither deletes nor updates the pod');
    expect(message).toContain('operate was granted, so it waits');
  });

  it('a granted pod left waiting holds the CloneSet: PodsHeld names the label and the pod, with a Normal Event; an undone one does not', () => {
    const waiting = edited(podOf('granted', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), 'scale-in');
    const plan = reconcile(inPlaceCs(), [waiting]);
    expect(plan.waits.filter(isHold).map((h) => ({ kind: HOLD_REASONS[h.kind], message: waitMessage(h) }))).toEqual([{ kind: 'OperationTypeMismatch', message: `waiting for label ${TYPE} to say again what the CloneSet began on 1 pod(s): x (changed after operate was granted)` }]);
    expect(plan.actions.filter((a) => a.kind === 'event').map((a) => 'reason' in a && a.reason)).toEqual(['WaitingForOperationTypeLabel']);
    const undone = edited(podOf('waiting', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), 'scale-in');
    expect(reconcile(inPlaceCs(), [undone]).waits.filter(isHold)).toEqual([]);
  });

  it('a pod the CloneSet began a scale-in on keeps its place in the scale-in choice, relabelled or not', () => {
    const a = pod({ name: 'a', rev: 'cs-new', state: 'Normal', labels: CONTROL, createdSec: 10 });
    const b = edited(podOf('granted', SCALE_IN, { name: 'b', rev: 'cs-new', state: 'Normal', createdSec: 9000 }), 'update');
    const plan = planScale(ctxFor(cloneSet({ replicas: 1 }), [a, b]));
    // b holds the one scale-in slot: no second pod is scaled in while b waits for its label.
    expect(plan.actions).toEqual([]);
    expect([...(plan.chosen ?? [])]).toEqual(['b']);
  });

  it('reads what it began from the pod alone: the same pods plan the same in a restarted manager', () => {
    const p = edited(podOf('granted', IN_PLACE, { name: 'x', rev: 'cs-old', state: 'Normal' }), 'scale-in');
    const copy = JSON.parse(JSON.stringify(p)) as V1Pod;
    expect(cloneSetLifecycle(copy)).toEqual(cloneSetLifecycle(p));
    expect(cloneSetLifecycle(copy).state).toBe('altered');
  });
});

describe('undo: a pod that leaves the plan before it may operate', () => {
  const reconcile = reconcileWith;
  const undos = (actions: readonly PlannedAction[]) => actions.flatMap((a) => (a.kind === 'undoOperation' ? [`${a.step}:${a.type}:${a.name}`] : []));

  it('an update operation on a pod already at the update revision is undone', () => {
    const p = podOf('waiting', IN_PLACE, { name: 'a', rev: 'cs-new', state: 'Normal' });
    const cs = inPlaceCs();
    const plan = reconcile({ ...cs, spec: { ...cs.spec, template: templateWithImage('nginx:1') } }, [p]);
    expect(undos(plan.actions)).toEqual(['update:update:a']);
  });

  it('a scale-in operation is undone when the CloneSet no longer scales in (replicas raised back)', () => {
    const p = podOf('waiting', SCALE_IN, { name: 'a', rev: 'cs-new', state: 'Normal' });
    const plan = reconcile(inPlaceCs({ replicas: 2, template: templateWithImage('nginx:1') }), [pod({ rev: 'cs-new', state: 'Normal' }), p]);
    expect(undos(plan.actions)).toEqual(['scale:scale-in:a']);
  });

  it('a granted operation is never undone, nor a chosen one', () => {
    const granted = podOf('granted', IN_PLACE, { name: 'g', rev: 'cs-old', state: 'Normal' });
    const plan = reconcile(inPlaceCs({ replicas: 1 }), [granted]);
    expect(undos(plan.actions)).toEqual([]);
  });
});

describe('availability of controlled pods', () => {
  const status = (ps: V1Pod[]) =>
    computeStatus({ cs: cloneSet({ replicas: ps.length }), pods: ps, updateRevision: 'cs-new', currentRevision: 'cs-old', collisionCount: 0, partition: 0, failures: {}, nowMs: NOW }).status;

  it('availableReplicas counts a controlled pod only when service-available and in no operation', () => {
    const ps = [
      pod({ rev: 'cs-new' }), // uncontrolled: as under OpenKruise
      pod({ rev: 'cs-new', labels: CONTROL }),
      pod({ rev: 'cs-new', labels: { [KUSION_CONTROL_LABEL]: 'true' } }), // not service-available
      podOf('waiting', IN_PLACE, { rev: 'cs-new' }),
      pod({ rev: 'cs-new', labels: { ...CONTROL, 'operating.podopslifecycle.kusionstack.io/other': TS, 'operation-type.podopslifecycle.kusionstack.io/other': 'restart' } }),
    ];
    expect(status(ps)).toMatchObject({ readyReplicas: 5, availableReplicas: 2 });
  });

  it('a pod in an operation counts as unavailable for maxUnavailable', () => {
    const cs = inPlaceCs({ replicas: 2 });
    const busy = podOf('waiting', IN_PLACE, { rev: 'cs-old', state: 'Normal' });
    const d = updateDiffs(ctxFor(cs, [busy, podOf('controlled', IN_PLACE, { rev: 'cs-old', state: 'Normal' })]));
    expect(d.tallies.totalUnavailable).toBe(1);
    const plain = updateDiffs(ctxFor(cs, [pod({ rev: 'cs-old', state: 'Normal' }), pod({ rev: 'cs-old', state: 'Normal' })]));
    expect(plain.tallies.totalUnavailable).toBe(0);
    // With maxUnavailable 1 the second pod waits for the first.
    expect(shape(planUpdate(ctxFor(cs, [busy, podOf('controlled', IN_PLACE, { rev: 'cs-old', state: 'Normal' })])).actions)).toEqual([]);
    expect(scaleDiffs(ctxFor(cs, [busy])).tallies.totalUnavailable).toBe(1);
  });
});

describe('invariant: no delete or update of a controlled pod without operate/cloneset of the operation it began, never under a prot. finalizer', () => {
  const flavours: Flavour[] = ['uncontrolled', 'controlled', 'waiting', 'granted', 'grantedProtected', 'otherTypeWaiting'];
  const podArb = fc.record({
    flavour: fc.constantFrom(...flavours),
    op: fc.constantFrom(SCALE_IN, IN_PLACE, RECREATE),
    rev: fc.constantFrom('cs-old', 'cs-new'),
    state: fc.constantFrom('Normal', 'Updating', 'PreparingNormal'),
    ready: fc.boolean(),
    sd: fc.boolean(),
  });
  const acting = new Set(['deletePod', 'inPlaceUpdate']);

  it('holds for any pods, replicas and strategy', () => {
    fc.assert(
      fc.property(
        fc.array(podArb, { minLength: 0, maxLength: 6 }),
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom('ReCreate', 'InPlaceIfPossible', 'InPlaceOnly'),
        fc.integer({ min: 1, max: 4 }),
        (specs, replicas, type, maxUnavailable) => {
          const pods = specs.map((s, i) => podOf(s.flavour, s.op, { name: `p${i}`, id: `p${i}`, rev: s.rev, state: s.state, ready: s.ready, sd: s.sd }));
          const cs = cloneSet({ replicas, template: templateWithImage('nginx:1'), updateStrategy: { type, maxUnavailable } });
          const plan = reconcileWith(cs, pods);
          const byName = new Map(pods.map((p) => [podName(p), p]));
          for (const a of plan.actions) {
            const name = 'name' in a && typeof a.name === 'string' ? a.name : '';
            const target = byName.get(name);
            if (!target || target.metadata?.labels?.[KUSION_CONTROL_LABEL] !== 'true') continue;
            const acts = acting.has(a.kind) || (a.kind === 'patchPod' && a.reason === 'RecreateUpdate');
            if (!acts) continue;
            const own = ownOperation(target);
            expect(own?.granted, `${a.kind} on ${name} without operate`).toBe(true);
            expect(target.metadata?.finalizers ?? []).not.toContain(PROT);
            // A delete only of an operation begun as deleting; an update only of an update.
            if (a.kind === 'deletePod' || a.kind === 'patchPod') expect(own?.operation.deletesPod).toBe(true);
            if (a.kind !== 'deletePod') expect(own?.operation.type).toBe('update');
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
