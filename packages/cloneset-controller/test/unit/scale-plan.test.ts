import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { scaleDiffs } from '../../src/core/update/step-diffs.ts';
import { ID_ALPHABET, allocateInstanceIds, slowStartBatches } from '../../src/core/scale/instance-ids.ts';
import { planPodsToDeleteCleanup, planPvcCleanup, planScale } from '../../src/core/scale/scale-plan.ts';
import type { CreatePodAction, DeletePodAction, PatchPodAction, PlanAction } from '../../src/core/plan.ts';
import { isPreparingDelete, isReady, isSpecifiedDelete, instanceIdOf } from '../../src/core/pods/pod-state.ts';
import { CS_UID, NOW, cloneSet, ctxFor, onConditions, pod, pvc, seededRandom, type PodOpts } from './fixtures.ts';

const creates = (a: PlanAction[]) => a.filter((x): x is CreatePodAction => x.kind === 'createPod');
const deletes = (a: PlanAction[]) => a.filter((x): x is DeletePodAction => x.kind === 'deletePod');
const patches = (a: PlanAction[]) => a.filter((x): x is PatchPodAction => x.kind === 'patchPod');
const newR: PodOpts = { rev: 'cs-new', state: 'Normal' };

describe('instance ids and slow start', () => {
  it.each([
    [0, []],
    [1, [1]],
    [3, [1, 2]],
    [7, [1, 2, 4]],
    [10, [1, 2, 4, 3]],
  ])('batches for %i', (n, want) => {
    expect(slowStartBatches(n)).toEqual(want);
  });

  it('reuses free PVC ids first (sorted), then draws fresh ones', () => {
    const a = allocateInstanceIds({
      csName: 'cs',
      count: 3,
      pods: [pod({ id: 'bbbbb' })],
      pvcs: [pvc('d-cs-zzzzz', 'zzzzz'), pvc('d-cs-ccccc', 'ccccc'), pvc('d-cs-bbbbb', 'bbbbb')],
      disableReuse: false,
      random: seededRandom(3),
    });
    expect(a.ids.slice(0, 2)).toEqual(['ccccc', 'zzzzz']);
    expect(a.ids[2]).toMatch(new RegExp(`^[${ID_ALPHABET}]{5}$`));
    expect(new Set(a.ids).size).toBe(3);
  });

  it('an id is reused only once no pod holds its name: waits for a terminating pod of the same name, skips a finished one', () => {
    const terminating = pod({ id: 'ccccc', name: 'cs-ccccc', deleting: true });
    const failed = pod({ id: 'ddddd', name: 'cs-ddddd', phase: 'Failed' });
    const a = allocateInstanceIds({
      csName: 'cs',
      count: 2,
      pods: [terminating, failed],
      pvcs: [pvc('d-cs-ccccc', 'ccccc'), pvc('d-cs-ddddd', 'ddddd')],
      disableReuse: false,
      random: seededRandom(1),
    });
    expect(a.waitingFor).toEqual(['cs-ccccc']);
    expect(a.ids).toHaveLength(1);
    expect(a.ids).not.toContain('ccccc');
    expect(a.ids).not.toContain('ddddd');
  });

  it('never draws an id in use (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.integer(), (count, seed) => {
        // A tiny random source forces collisions: only a few distinct ids are possible.
        const rnd = seededRandom(seed);
        const coarse = () => Math.floor(rnd() * 3) / 3;
        const existing = [pod({ id: 'bbbbb' }), pod({ id: 'ggggg', deleting: true })];
        const real = seededRandom(seed + 1);
        let calls = 0;
        const a = allocateInstanceIds({
          csName: 'cs',
          count,
          pods: existing,
          pvcs: [pvc('x', 'bbbbb')],
          disableReuse: true,
          random: () => (calls++ < 50 ? coarse() : real()),
        });
        return new Set(a.ids).size === count && !a.ids.includes('bbbbb') && !a.ids.includes('ggggg');
      }),
    );
  });
});

describe('scale-out', () => {
  it('creates pods at the update revision with labels, owner, both readiness gates and PVCs', () => {
    const cs = cloneSet({
      replicas: 3,
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }],
    });
    const plan = planScale(ctxFor(cs, []));
    const c = creates(plan.actions);
    expect(plan.modified).toBe(true);
    expect(c.map((x) => x.batch)).toEqual([0, 1, 1]);
    for (const x of c) {
      const p = x.pod;
      expect(x.name).toBe(`cs-${x.instanceId}`);
      expect(x.revision).toBe('cs-new');
      expect(p.metadata!.labels).toMatchObject({
        app: 'demo',
        'controller-revision-hash': 'cs-new',
        'pod-template-hash': 'new',
        'apps.kruise.io/cloneset-instance-id': x.instanceId,
        'lifecycle.apps.kruise.io/state': 'PreparingNormal',
      });
      expect(p.metadata!.annotations!['lifecycle.apps.kruise.io/timestamp']).toBe('2026-01-01T00:10:00Z');
      expect(p.metadata!.ownerReferences).toEqual([
        { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs', uid: 'uid-cs', controller: true, blockOwnerDeletion: true },
      ]);
      expect(p.spec!.readinessGates!.map((g) => g.conditionType)).toEqual(['InPlaceUpdateReady', 'KruisePodReady']);
      expect(p.spec!.volumes![0]).toEqual({ name: 'data', persistentVolumeClaim: { claimName: `data-cs-${x.instanceId}` } });
      expect(x.pvcs.map((v) => v.metadata!.name)).toEqual([`data-cs-${x.instanceId}`]);
      expect(x.pvcs[0]!.metadata!.labels).toMatchObject({ app: 'demo', 'apps.kruise.io/cloneset-instance-id': x.instanceId });
    }
  });

  it('short hash gate labels the pod with the hash only', () => {
    const plan = planScale(ctxFor(cloneSet({ replicas: 1 }), [], { gates: { CloneSetShortHash: true } }));
    expect(creates(plan.actions)[0]!.pod.metadata!.labels!['controller-revision-hash']).toBe('new');
  });

  it('creates scaleUpNumOld pods at the current revision from its stored template', () => {
    const cs = cloneSet({ replicas: 5, updateStrategy: { partition: 3 } });
    const plan = planScale(ctxFor(cs, [pod({ rev: 'cs-old' })]));
    const c = creates(plan.actions);
    expect(c.map((x) => x.revision)).toEqual(['cs-old', 'cs-old', 'cs-new', 'cs-new']);
    expect(c[0]!.pod.spec!.containers[0]!.image).toBe('nginx:0');
    expect(c[3]!.pod.spec!.containers[0]!.image).toBe('nginx:1');
  });

  it('reuses a free PVC id and does not recreate an existing PVC', () => {
    const cs = cloneSet({ replicas: 1, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }] });
    const plan = planScale(ctxFor(cs, [], { pvcs: [pvc('data-cs-kkkkk', 'kkkkk')] }));
    const c = creates(plan.actions);
    expect(c[0]!.name).toBe('cs-kkkkk');
    expect(c[0]!.pvcs).toEqual([]);
  });

  it('fix 5: holds the slot and requeues while the old pod of that name terminates', () => {
    const cs = cloneSet({ replicas: 1 });
    const plan = planScale(
      ctxFor(cs, [], { pvcs: [pvc('data-cs-kkkkk', 'kkkkk')], inactive: [pod({ id: 'kkkkk', name: 'cs-kkkkk', deleting: true })] }),
    );
    expect(creates(plan.actions)).toEqual([]);
    expect(plan.requeueAfterMs).toBe(1000);
    expect(plan.modified).toBe(false);
    // The wait is said: an Event and the FailedScale condition name the pod waited for.
    expect(plan.actions).toEqual([{ kind: 'event', type: 'Warning', reason: 'WaitingForPodDeletion', message: expect.stringContaining('cs-kkkkk') }]);
    expect(onConditions(plan.waits)).toEqual([{ condition: 'FailedScale', message: expect.stringContaining('cs-kkkkk') }]);
  });

  it.each<[string, V1Pod]>([
    ['released (no owner reference any more)', pod({ id: 'kkkkk', name: 'cs-kkkkk', owner: 'none', labels: { app: 'other' } })],
    ['owned by another controller', pod({ id: 'kkkkk', name: 'cs-kkkkk', owner: 'other' })],
  ])('a free id whose pod name is held by a pod that is not ours (%s) is not reused: a new id, new claims, no wait', (_n, holder) => {
    const cs = cloneSet({ replicas: 1, volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }] });
    const plan = planScale(ctxFor(cs, [], { pvcs: [pvc('data-cs-kkkkk', 'kkkkk')], podNamed: (n) => (n === 'cs-kkkkk' ? holder : undefined) }));
    const c = creates(plan.actions);
    expect(c).toHaveLength(1);
    expect(c[0]!.instanceId).not.toBe('kkkkk');
    expect(c[0]!.pvcs.map((x) => x.metadata?.name)).toEqual([`data-cs-${c[0]!.instanceId}`]);
    expect(onConditions(plan.waits)).toEqual([]);
    expect(plan.requeueAfterMs).toBeUndefined();
  });

  it('scaleStrategy.maxUnavailable limits creations and emits ScaleUpLimited', () => {
    const cs = cloneSet({ replicas: 5, scaleStrategy: { maxUnavailable: 2 }, minReadySeconds: 60 });
    // One pod ready for 10s < minReadySeconds: unavailable, so only one more may be created.
    const plan = planScale(ctxFor(cs, [pod({ ...newR, readySinceSec: 10 }), pod({ ...newR })]));
    expect(creates(plan.actions)).toHaveLength(1);
    expect(plan.actions[0]).toMatchObject({ kind: 'event', type: 'Warning', reason: 'ScaleUpLimited' });
    expect((plan.actions[0] as { message: string }).message).toBe('scaleUp is limited because of scaleStrategy.maxUnavailable, limit: 1');
  });

  it('scaleUpLimit 0 writes nothing, ends deletions, and leaves the pass to Update', () => {
    const cs = cloneSet({ replicas: 3, scaleStrategy: { maxUnavailable: 1, podsToDelete: [] } });
    const plan = planScale(ctxFor(cs, [pod({ ...newR, ready: false }), pod({ ...newR, sd: true, ready: false })]));
    expect(creates(plan.actions)).toEqual([]);
    expect(deletes(plan.actions)).toEqual([]);
    expect(plan.modified).toBe(false);
  });
});

describe('deletion paths', () => {
  it('1. cancels PreparingDelete on scale-up, not for specified-delete pods', () => {
    const cs = cloneSet({ replicas: 3 });
    const pd = pod({ ...newR, state: 'PreparingDelete' });
    const pdSd = pod({ ...newR, state: 'PreparingDelete', sd: true });
    const plan = planScale(ctxFor(cs, [pod(newR), pd, pdSd]));
    expect(patches(plan.actions)).toMatchObject([{ name: pd.metadata!.name, lifecycle: { from: 'PreparingDelete', to: 'PreparingNormal' } }]);
    expect(plan.modified).toBe(true);
  });

  it('1. no cancel with markPodNotReady', () => {
    const cs = cloneSet({ replicas: 3, lifecycle: { preDelete: { markPodNotReady: true, finalizersHandler: ['x/y'] } } });
    const plan = planScale(ctxFor(cs, [pod(newR), pod(newR), pod({ ...newR, state: 'PreparingDelete' })]));
    expect(patches(plan.actions)).toEqual([]);
  });

  it('2. scale-out wins over specified deletes', () => {
    const cs = cloneSet({ replicas: 3 });
    const plan = planScale(ctxFor(cs, [pod(newR), pod({ ...newR, sd: true })]));
    expect(creates(plan.actions)).toHaveLength(1);
    expect(deletes(plan.actions)).toEqual([]);
  });

  it('3. finishes a pre-delete whose hook was released; waits for a hooked one', () => {
    const lifecycle = { preDelete: { finalizersHandler: ['x/hook'] } };
    const cs = cloneSet({ replicas: 2, lifecycle });
    const released = pod({ ...newR, state: 'PreparingDelete', id: 'rrrrr' });
    const held = pod({ ...newR, state: 'PreparingDelete' });
    held.metadata!.finalizers = ['x/hook'];
    const plan = planScale(ctxFor(cs, [pod(newR), pod(newR), released, held], { pvcs: [pvc('data-cs-rrrrr', 'rrrrr')] }));
    expect(deletes(plan.actions)).toEqual([{ kind: 'deletePod', name: released.metadata!.name, reason: 'PreDeleteHookReleased', withPvcs: ['data-cs-rrrrr'] }]);
  });

  it('3b. a deleted pod takes the claims its volumes name by our naming, even before the PVC cache has them; never a claim it only mounts', () => {
    const cs = cloneSet({ replicas: 1 });
    const gone = pod({ ...newR, sd: true, id: 'lllll', ready: false });
    gone.spec!.volumes = [
      { name: 'data', persistentVolumeClaim: { claimName: 'data-cs-lllll' } },
      { name: 'shared', persistentVolumeClaim: { claimName: 'team-shared-claim' } },
    ];
    const plan = planScale(ctxFor(cs, [pod(newR), gone], { pvcs: [] }));
    expect(deletes(plan.actions)).toEqual([{ kind: 'deletePod', name: gone.metadata!.name, reason: 'SpecifiedDelete', withPvcs: ['data-cs-lllll'] }]);
  });

  it('4. specified deletes: not-ready always, ready only within deleteReadyLimit', () => {
    // R=4, U=1: deleteReadyLimit = 1 + 0 - 0 = 1.
    const cs = cloneSet({ replicas: 4, updateStrategy: { maxUnavailable: 1 } });
    const sdReady1 = pod({ ...newR, sd: true });
    const sdReady2 = pod({ ...newR, sd: true });
    const sdNotReady = pod({ ...newR, sd: true, ready: false });
    const plan = planScale(ctxFor(cs, [pod(newR), sdReady1, sdReady2, sdNotReady]));
    expect(deletes(plan.actions).map((d) => d.name)).toEqual([sdReady1.metadata!.name, sdNotReady.metadata!.name]);
    expect(deletes(plan.actions).every((d) => d.reason === 'SpecifiedDelete')).toBe(true);
  });

  it('4. podsToDelete names count as specified', () => {
    const p = pod(newR);
    const cs = cloneSet({ replicas: 2, scaleStrategy: { podsToDelete: [p.metadata!.name!] } });
    const plan = planScale(ctxFor(cs, [pod(newR), pod(newR), p]));
    expect(deletes(plan.actions).map((d) => d.name)).toEqual([p.metadata!.name]);
  });

  it('preDelete hook: hooked pod goes to PreparingDelete with the not-ready key first', () => {
    const cs = cloneSet({ replicas: 1, lifecycle: { preDelete: { labelsHandler: { hook: 'on' }, markPodNotReady: true } } });
    const keep = pod(newR);
    const hooked = pod({ ...newR, labels: { hook: 'on' } });
    hooked.spec!.readinessGates = [{ conditionType: 'KruisePodReady' }];
    const plan = planScale(ctxFor(cs, [keep, hooked].reverse()));
    expect(plan.actions.map((a) => a.kind)).toEqual(['setPodConditions', 'patchPod']);
    expect(plan.actions[0]).toMatchObject({
      conditions: [{ type: 'KruisePodReady', status: 'False', message: '[{"userAgent":"Lifecycle","key":"preDeleteHook"}]' }],
    });
    expect(patches(plan.actions)[0]).toMatchObject({ name: hooked.metadata!.name, lifecycle: { to: 'PreparingDelete' } });
  });

  it('5. scale-in deletes old pods first, not-ready first', () => {
    const cs = cloneSet({ replicas: 3, updateStrategy: { maxUnavailable: 2, partition: 1 } });
    const old1 = pod({ rev: 'cs-old' });
    const old2 = pod({ rev: 'cs-old', ready: false });
    const plan = planScale(ctxFor(cs, [pod(newR), pod(newR), old1, old2, pod(newR)]));
    // total 5, R 3, expectedOld P=1 -> scaleDownNumOld = 1, the rest from new.
    const names = deletes(plan.actions).map((d) => d.name);
    expect(names).toHaveLength(2);
    expect(names[0]).toBe(old2.metadata!.name);
  });

  it('5. ready-but-not-available pods block scale-in (quirk 2, minReadySeconds)', () => {
    const cs = cloneSet({ replicas: 2, minReadySeconds: 600, updateStrategy: { maxUnavailable: 1 } });
    const plan = planScale(ctxFor(cs, [pod({ ...newR, readySinceSec: 5 }), pod({ ...newR, readySinceSec: 5 }), pod({ ...newR, readySinceSec: 5 })]));
    // T_unavail 3 > U + (total - R) = 2: no ready pod may go.
    expect(deletes(plan.actions)).toEqual([]);
  });

  it('5. no scale-in while a pod is specified-delete or PreparingDelete', () => {
    const cs = cloneSet({ replicas: 1, lifecycle: { preDelete: { labelsHandler: { hook: 'on' } } } });
    const held = pod({ ...newR, state: 'PreparingDelete', labels: { hook: 'on' } });
    const plan = planScale(ctxFor(cs, [pod(newR), pod(newR), held]));
    expect(plan.actions).toEqual([]);
    // Without the held pod the same spec scales in.
    expect(deletes(planScale(ctxFor(cs, [pod(newR), pod(newR)])).actions)).toHaveLength(1);
  });
});

describe('clean-ups', () => {
  it('podsToDelete keeps only claimed active pod names', () => {
    const p = pod(newR);
    const cs = cloneSet({ scaleStrategy: { podsToDelete: ['gone', p.metadata!.name!] } });
    expect(planPodsToDeleteCleanup(ctxFor(cs, [p]))).toEqual([{ kind: 'updatePodsToDelete', podsToDelete: [p.metadata!.name] }]);
    expect(planPodsToDeleteCleanup(ctxFor(cloneSet(), [p]))).toEqual([]);
  });

  it('disablePVCReuse re-owns PVCs of inactive pods and deletes orphaned ones', () => {
    const cs = cloneSet({ scaleStrategy: { disablePVCReuse: true } });
    const live = pod({ id: 'lllll' });
    const dead = pod({ id: 'ddddd', phase: 'Failed' });
    dead.metadata!.uid = 'dead-uid';
    const r = planPvcCleanup({ cs, allPods: [live, dead], pvcs: [pvc('a', 'lllll'), pvc('b', 'ddddd'), pvc('c', 'ggggg')] });
    expect(r.actions).toEqual([
      {
        kind: 'reownPvc',
        name: 'b',
        ownerReference: { apiVersion: 'v1', kind: 'Pod', name: dead.metadata!.name, uid: 'dead-uid', controller: true, blockOwnerDeletion: true },
        replaces: { index: 0, ownerReference: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs', uid: CS_UID, controller: true } },
      },
      { kind: 'deletePvc', name: 'c', reason: 'PVCReuseDisabled' },
    ]);
    expect(r.remaining.map((c) => c.metadata!.name)).toEqual(['a']);
  });
});

// ---- properties over random pod sets and specs ----

const podArb = fc.record({
  rev: fc.constantFrom('cs-old', 'cs-new'),
  ready: fc.boolean(),
  state: fc.constantFrom('', 'Normal', 'PreparingNormal', 'Updating', 'PreparingDelete'),
  sd: fc.boolean(),
  readySinceSec: fc.integer({ min: 0, max: 120 }),
  node: fc.constantFrom('n1', 'n2', ''),
});
const specArb = fc.record({
  replicas: fc.integer({ min: 0, max: 8 }),
  partition: fc.integer({ min: 0, max: 8 }),
  maxSurge: fc.integer({ min: 0, max: 3 }),
  maxUnavailable: fc.integer({ min: 0, max: 3 }),
  su: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  minReadySeconds: fc.constantFrom(0, 30),
  hook: fc.boolean(),
});

describe('scale planner properties', () => {
  it('bounds, budgets, specified-first and unique ids hold for any pods and spec', () => {
    fc.assert(
      fc.property(fc.array(podArb, { maxLength: 12 }), specArb, fc.integer(), (podSpecs, s, seed) => {
        const pods: V1Pod[] = podSpecs.map((p) => pod({ ...p, sd: p.sd && p.state !== 'PreparingDelete' && seed % 3 === 0 }));
        const cs = cloneSet({
          replicas: s.replicas,
          minReadySeconds: s.minReadySeconds,
          updateStrategy: { partition: s.partition, maxSurge: s.maxSurge, maxUnavailable: s.maxUnavailable },
          ...(s.su !== undefined ? { scaleStrategy: { maxUnavailable: s.su } } : {}),
          ...(s.hook ? { lifecycle: { preDelete: { labelsHandler: { hook: 'on' } } } } : {}),
        });
        const ctx = ctxFor(cs, pods, { seed });
        const d = scaleDiffs(ctx);
        const plan = planScale(ctx);
        const c = creates(plan.actions);
        const del = deletes(plan.actions);
        const byName = new Map(pods.map((p) => [p.metadata!.name!, p]));
        // Never more than R + S active pods planned (creations only up to the surge).
        if (c.length > 0) expect(pods.length + c.length).toBeLessThanOrEqual(s.replicas + s.maxSurge);
        // Creations and deletions never share a pass.
        expect(c.length === 0 || del.length === 0).toBe(true);
        // Ready pods removed from service (deleted or sent to PreparingDelete) stay within deleteReadyLimit.
        const removed = [
          ...del.map((x) => byName.get(x.name)!),
          ...patches(plan.actions).filter((x) => x.lifecycle?.to === 'PreparingDelete').map((x) => byName.get(x.name)!),
        ];
        expect(removed.filter((p) => isReady(p, NOW)).length).toBeLessThanOrEqual(d.deleteReadyLimit);
        // A specified pod is always chosen before any other: no scale-in while one exists.
        if (pods.some((p) => isSpecifiedDelete(p, []) || isPreparingDelete(p))) {
          expect(del.filter((x) => x.reason === 'ScaleIn')).toEqual([]);
        }
        // Ids unique and not in use.
        const ids = c.map((x) => x.instanceId);
        expect(new Set(ids).size).toBe(ids.length);
        const used = new Set(pods.map(instanceIdOf));
        expect(ids.some((id) => used.has(id))).toBe(false);
      }),
      { numRuns: 400 },
    );
  });
});

describe('PreparingUpdateAsUpdate (on by default here)', () => {
  // OpenKruise's e2e "CloneSet regard preparing-update pod as update when scaling": 2 replicas,
  // partition 1, one pod waiting in its in-place hook (PreparingUpdate, still old), the other deleted.
  const cs = cloneSet({ replicas: 2, updateStrategy: { type: 'InPlaceIfPossible', partition: 1, maxUnavailable: '50%' } });
  const held = (): V1Pod => pod({ rev: 'cs-old', state: 'PreparingUpdate' });
  const revisionsCreated = (gates: Record<string, boolean>): string[] =>
    creates(planScale(ctxFor(cs, [held()], { gates })).actions).map((c) => c.revision);

  it('is on when no gate is given: the replacement comes at the current revision, as the partition says', () => {
    expect(revisionsCreated({})).toEqual(['cs-old']);
    expect(revisionsCreated({ PreparingUpdateAsUpdate: true })).toEqual(['cs-old']);
  });

  it('turned off, behaves as OpenKruise at its default: the replacement comes at the update revision', () => {
    expect(revisionsCreated({ PreparingUpdateAsUpdate: false })).toEqual(['cs-new']);
  });
});

