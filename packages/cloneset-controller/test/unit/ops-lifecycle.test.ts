// CloneSet meets PodOpsLifecycle (decisions.md): the planners' decisions for controlled pods as
// action lists, the undo of pods that leave the plan, availability, and the safety invariant.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { KUSION_CONTROL_LABEL, POL_LABELS } from '@cloneset-suite/api-types';
import { scaleDiffs, updateDiffs } from '../../src/core/context.ts';
import { isOperateGranted, cloneSetOperation } from '../../src/core/ops-lifecycle.ts';
import type { PlanAction, PlannedAction } from '../../src/core/plan.ts';
import { podName } from '../../src/core/pod-state.ts';
import { planReconcile } from '../../src/core/reconcile-plan.ts';
import { planScale } from '../../src/core/scale-plan.ts';
import { computeStatus } from '../../src/core/status.ts';
import type { CloneSetSpecLike } from '../../src/core/types.ts';
import { planUpdate } from '../../src/core/update-plan.ts';
import { NOW, cloneSet, ctxFor, pod, revision, seededRandom, templateWithImage, type PodOpts } from './fixtures.ts';

const TS = '1767225600000000000';
const CONTROL = { [KUSION_CONTROL_LABEL]: 'true', [POL_LABELS.serviceAvailable]: TS };
const inOps = (type: string, operate = false): Record<string, string> => ({
  'operating.podopslifecycle.kusionstack.io/cloneset': TS,
  'operation-type.podopslifecycle.kusionstack.io/cloneset': type,
  ...(operate ? { 'operate.podopslifecycle.kusionstack.io/cloneset': TS } : {}),
});
const PROT = 'prot.podopslifecycle.kusionstack.io/traffic';

type Flavour = 'uncontrolled' | 'controlled' | 'waiting' | 'granted' | 'grantedProtected' | 'otherTypeWaiting';

function podOf(flavour: Flavour, type: string, opts: PodOpts): V1Pod {
  const other = type === 'update' ? 'scale-in' : 'update';
  const labels: Record<Flavour, Record<string, string>> = {
    uncontrolled: {},
    controlled: CONTROL,
    waiting: { ...CONTROL, ...inOps(type) },
    granted: { ...CONTROL, ...inOps(type, true) },
    grantedProtected: { ...CONTROL, ...inOps(type, true) },
    otherTypeWaiting: { ...CONTROL, ...inOps(other) },
  };
  const hash: Record<string, string> = opts.rev === undefined ? {} : { 'pod-template-hash': opts.rev.replace('cs-', '') };
  const p = pod({ ...opts, labels: { ...hash, ...(opts.labels ?? {}), ...labels[flavour] } });
  if (flavour === 'grantedProtected') p.metadata!.finalizers = [PROT];
  return p;
}

/** "kind:name-free detail" per action, the shape the tables compare. */
const shape = (actions: readonly PlanAction[]): string[] =>
  actions.map((a) => (a.kind === 'beginOperation' || a.kind === 'undoOperation' || a.kind === 'finishOperation' ? `${a.kind}:${a.type}` : 'reason' in a && a.kind !== 'event' ? `${a.kind}:${a.reason}` : a.kind));

describe('scale-in of a controlled pod goes through lifecycle id cloneset, type scale-in', () => {
  it.each<[Flavour, string[]]>([
    ['uncontrolled', ['deletePod:ScaleIn']],
    ['controlled', ['beginOperation:scale-in']],
    ['waiting', []],
    ['granted', ['deletePod:ScaleIn']],
    ['grantedProtected', []],
    ['otherTypeWaiting', ['undoOperation:update']],
  ])('%s -> %j', (flavour, want) => {
    const victim = podOf(flavour, 'scale-in', { rev: 'cs-new', state: 'Normal', ready: false });
    const keep = pod({ rev: 'cs-new', state: 'Normal' });
    const plan = planScale(ctxFor(cloneSet({ replicas: 1 }), [keep, victim]));
    expect(shape(plan.actions)).toEqual(want);
    if (want.length) expect(plan.actions.every((a) => 'name' in a && a.name === podName(victim))).toBe(true);
  });

  it.each<[Flavour, string[]]>([
    ['uncontrolled', ['deletePod:SpecifiedDelete']],
    ['controlled', ['beginOperation:scale-in']],
    ['waiting', []],
    ['granted', ['deletePod:SpecifiedDelete']],
    ['grantedProtected', []],
  ])('specified delete, %s -> %j', (flavour, want) => {
    const victim = podOf(flavour, 'scale-in', { rev: 'cs-new', state: 'Normal', sd: true });
    const plan = planScale(ctxFor(cloneSet({ replicas: 2 }), [pod({ rev: 'cs-new', state: 'Normal' }), victim]));
    expect(shape(plan.actions.filter((a) => a.kind !== 'createPod'))).toEqual(want);
  });

  it('the OpenKruise preDelete hook still applies once the lifecycle granted operate', () => {
    const cs = cloneSet({ replicas: 1, lifecycle: { preDelete: { finalizersHandler: ['example.com/hold'] } } });
    const victim = podOf('granted', 'scale-in', { rev: 'cs-new', state: 'Normal', ready: false });
    victim.metadata!.finalizers = ['example.com/hold'];
    const plan = planScale(ctxFor(cs, [pod({ rev: 'cs-new', state: 'Normal' }), victim]));
    expect(shape(plan.actions)).toEqual(['patchPod:Lifecycle']);
  });

  it('a pod whose scale-in was granted is deleted even when replicas went back up (as Kuperator)', () => {
    const granted = podOf('granted', 'scale-in', { rev: 'cs-new', state: 'Normal' });
    const plan = planScale(ctxFor(cloneSet({ replicas: 2 }), [pod({ rev: 'cs-new', state: 'Normal' }), granted]));
    expect(shape(plan.actions)).toEqual(['deletePod:ScaleIn']);
  });

  it('keeps its choice: a pod already in scale-in goes first', () => {
    const a = pod({ rev: 'cs-new', state: 'Normal', labels: CONTROL, createdSec: 10 });
    const b = podOf('waiting', 'scale-in', { rev: 'cs-new', state: 'Normal', createdSec: 9000 });
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
    const p = podOf(flavour, 'update', { rev: 'cs-old', state: 'Normal' });
    expect(shape(planUpdate(ctxFor(inPlaceCs(), [p])).actions)).toEqual(want);
  });

  it.each<[Flavour, string[]]>([
    ['uncontrolled', ['patchPod:RecreateUpdate']],
    ['controlled', ['beginOperation:update']],
    ['waiting', []],
    ['granted', ['patchPod:RecreateUpdate']],
    ['grantedProtected', []],
  ])('recreate, %s -> %j', (flavour, want) => {
    const p = podOf(flavour, 'update', { rev: 'cs-old', state: 'Normal' });
    const cs = cloneSet({ replicas: 1, updateStrategy: { type: 'ReCreate', maxUnavailable: 1 } });
    expect(shape(planUpdate(ctxFor(cs, [p])).actions)).toEqual(want);
  });

  it('a granted recreate update is then deleted by the Scale step as a specified delete', () => {
    const p = podOf('granted', 'update', { rev: 'cs-old', state: 'Normal', sd: true });
    const plan = planScale(ctxFor(cloneSet({ replicas: 1, updateStrategy: { type: 'ReCreate', maxUnavailable: 1 } }), [p]));
    expect(shape(plan.actions)).toEqual(['deletePod:SpecifiedDelete']);
  });

  it.each<[string, PodOpts, string[]]>([
    ['done: at the update revision, Normal', { rev: 'cs-new', state: 'Normal' }, ['finishOperation:update']],
    ['still updating', { rev: 'cs-new', state: 'Updating' }, []],
    ['not updated yet', { rev: 'cs-old', state: 'Normal' }, ['inPlaceUpdate']],
  ])('finish: %s -> %j', (_, opts, want) => {
    const p = podOf('granted', 'update', opts);
    const actions = planUpdate(ctxFor(inPlaceCs(), [p])).actions.filter((a) => a.kind !== 'setPodConditions' && a.kind !== 'patchPod');
    expect(shape(actions)).toEqual(want);
  });
});

describe('undo: a pod that leaves the plan before it may operate', () => {
  const reconcile = (cs: ReturnType<typeof cloneSet>, pods: V1Pod[]) =>
    planReconcile({
      cs,
      pods,
      pvcs: [],
      revisions: [revision('cs-old', 1, templateWithImage('nginx:0')), revision('cs-new', 2, cs.spec.template)],
      gates: {},
      nowMs: NOW,
      random: seededRandom(1),
    });
  const undos = (actions: readonly PlannedAction[]) => actions.flatMap((a) => (a.kind === 'undoOperation' ? [`${a.step}:${a.type}:${a.name}`] : []));

  it('an update operation on a pod already at the update revision is undone', () => {
    const p = podOf('waiting', 'update', { name: 'a', rev: 'cs-new', state: 'Normal' });
    const cs = inPlaceCs();
    const plan = reconcile({ ...cs, spec: { ...cs.spec, template: templateWithImage('nginx:1') } }, [p]);
    expect(undos(plan.actions)).toEqual(['update:update:a']);
  });

  it('a scale-in operation is undone when the CloneSet no longer scales in (replicas raised back)', () => {
    const p = podOf('waiting', 'scale-in', { name: 'a', rev: 'cs-new', state: 'Normal' });
    const plan = reconcile(inPlaceCs({ replicas: 2, template: templateWithImage('nginx:1') }), [pod({ rev: 'cs-new', state: 'Normal' }), p]);
    expect(undos(plan.actions)).toEqual(['scale:scale-in:a']);
  });

  it('a granted operation is never undone, nor a chosen one', () => {
    const granted = podOf('granted', 'update', { name: 'g', rev: 'cs-old', state: 'Normal' });
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
      podOf('waiting', 'update', { rev: 'cs-new' }),
      pod({ rev: 'cs-new', labels: { ...CONTROL, 'operating.podopslifecycle.kusionstack.io/other': TS, 'operation-type.podopslifecycle.kusionstack.io/other': 'restart' } }),
    ];
    expect(status(ps)).toMatchObject({ readyReplicas: 5, availableReplicas: 2 });
  });

  it('a pod in an operation counts as unavailable for maxUnavailable', () => {
    const cs = inPlaceCs({ replicas: 2 });
    const busy = podOf('waiting', 'update', { rev: 'cs-old', state: 'Normal' });
    const d = updateDiffs(ctxFor(cs, [busy, podOf('controlled', 'update', { rev: 'cs-old', state: 'Normal' })]));
    expect(d.tallies.totalUnavailable).toBe(1);
    const plain = updateDiffs(ctxFor(cs, [pod({ rev: 'cs-old', state: 'Normal' }), pod({ rev: 'cs-old', state: 'Normal' })]));
    expect(plain.tallies.totalUnavailable).toBe(0);
    // With maxUnavailable 1 the second pod waits for the first.
    expect(shape(planUpdate(ctxFor(cs, [busy, podOf('controlled', 'update', { rev: 'cs-old', state: 'Normal' })])).actions)).toEqual([]);
    expect(scaleDiffs(ctxFor(cs, [busy])).tallies.totalUnavailable).toBe(1);
  });
});

describe('invariant: no delete or update of a controlled pod without operate/cloneset, never under a prot. finalizer', () => {
  const flavours: Flavour[] = ['uncontrolled', 'controlled', 'waiting', 'granted', 'grantedProtected', 'otherTypeWaiting'];
  const podArb = fc.record({
    flavour: fc.constantFrom(...flavours),
    type: fc.constantFrom('update', 'scale-in'),
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
          const pods = specs.map((s, i) => podOf(s.flavour, s.type, { name: `p${i}`, id: `p${i}`, rev: s.rev, state: s.state, ready: s.ready, sd: s.sd }));
          const cs = cloneSet({ replicas, template: templateWithImage('nginx:1'), updateStrategy: { type, maxUnavailable } });
          const plan = planReconcile({
            cs,
            pods,
            pvcs: [],
            revisions: [revision('cs-old', 1, templateWithImage('nginx:0')), revision('cs-new', 2, cs.spec.template)],
            gates: {},
            nowMs: NOW,
            random: seededRandom(1),
          });
          const byName = new Map(pods.map((p) => [podName(p), p]));
          for (const a of plan.actions) {
            const name = 'name' in a && typeof a.name === 'string' ? a.name : '';
            const target = byName.get(name);
            if (!target || target.metadata?.labels?.[KUSION_CONTROL_LABEL] !== 'true') continue;
            const acts = acting.has(a.kind) || (a.kind === 'patchPod' && a.reason === 'RecreateUpdate');
            if (!acts) continue;
            expect(isOperateGranted(target), `${a.kind} on ${name} without operate`).toBe(true);
            expect(target.metadata?.finalizers ?? []).not.toContain(PROT);
            if (a.kind !== 'deletePod') expect(cloneSetOperation(target)).toBe('update');
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
