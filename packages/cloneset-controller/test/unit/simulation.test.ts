// A pure in-memory cluster: apply each plan, let pods become ready after random
// delays, and check the invariants at every step of a rollout.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1ControllerRevision, V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { planReconcile, statusInputFor } from '../../src/core/reconcile-plan.ts';
import { podReadiness } from '../../src/core/pods/pod-conditions.ts';
import { computeStatus, statusEquals } from '../../src/core/status/status.ts';
import { isAvailable, isPodAtRevision, isPreparingDelete } from '../../src/core/pods/pod-state.ts';
import type { ConditionWrite, PlanAction } from '../../src/core/plan.ts';
import type { CloneSetLike } from '../../src/core/types.ts';
import { deepFreeze } from '@cloneset-suite/kube-runtime';
import { CS_UID, NOW, cloneSet, seededRandom } from './fixtures.ts';

interface Sim {
  cs: CloneSetLike;
  pods: Map<string, V1Pod>;
  revisions: V1ControllerRevision[];
  now: number;
  /** name -> time the kubelet finishes starting (or restarting) its containers */
  startsAt: Map<string, number>;
  created: Set<string>;
  delay: () => number;
  hooks: boolean;
  /**
   * What the planner is given (default: the live objects the sim goes on to change): `copies`, a
   * fresh copy of each pod every pass; `cache`, as the informer cache holds them, one frozen
   * object per version (its JSON in `cached`), the same object while the pod does not change.
   */
  planFrom?: 'copies' | 'cache';
  cached?: Map<string, { json: string; pod: V1Pod }>;
}

/** The kubelet's half of Pod Ready++: it writes Ready as the core's podReadiness says. */
function recomputeReady(p: V1Pod): void {
  const conds = p.status!.conditions!;
  const ready = podReadiness(p);
  const cur = conds.find((c) => c.type === 'Ready');
  if (!cur) conds.push({ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date(p.status!.phase === 'Running' ? 0 : 0) });
  const c = conds.find((x) => x.type === 'Ready')!;
  const status = ready ? 'True' : 'False';
  if (c.status !== status || !c.lastTransitionTime) {
    c.status = status;
    c.lastTransitionTime = new Date(simNow);
  }
}
let simNow = NOW;

/** The planned /status write, as the apiserver merges it (by type; null deletes a field). */
function setConditions(p: V1Pod, writes: readonly ConditionWrite[]): void {
  for (const n of writes) {
    const list = p.status!.conditions!;
    const i = list.findIndex((c) => c.type === n.type);
    const next: V1PodCondition = { type: n.type, status: n.status, ...(n.reason ? { reason: n.reason } : {}), ...(n.message ? { message: n.message } : {}), lastTransitionTime: new Date(n.lastTransitionTime) };
    if (i >= 0) list[i] = next;
    else list.push(next);
  }
  recomputeReady(p);
}

function mergeMap(target: Record<string, string>, patch: Record<string, string | null> | undefined): Record<string, string> {
  const out = { ...target };
  for (const [k, v] of Object.entries(patch ?? {})) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

function apply(sim: Sim, a: PlanAction): void {
  const pod = 'name' in a ? sim.pods.get(a.name) : undefined;
  switch (a.kind) {
    case 'createRevision':
      sim.revisions.push(a.revision);
      break;
    case 'updateRevision':
      sim.revisions = sim.revisions.map((r) => (r.metadata!.name === a.name ? { ...r, revision: a.revision } : r));
      break;
    case 'deleteRevision':
      sim.revisions = sim.revisions.filter((r) => r.metadata!.name !== a.name);
      break;
    case 'createPod': {
      expect(sim.created.has(a.name), `pod ${a.name} created twice`).toBe(false);
      sim.created.add(a.name);
      const p = structuredClone(a.pod);
      p.metadata!.uid = `uid-${a.name}`;
      p.metadata!.creationTimestamp = new Date(simNow);
      p.spec!.nodeName = 'node-1';
      p.status = {
        phase: 'Pending',
        conditions: [],
        containerStatuses: p.spec!.containers.map((c) => ({ name: c.name, image: c.image!, imageID: `id-${c.image}`, ready: false, restartCount: 0 })),
      };
      setConditions(p, a.initialConditions);
      sim.pods.set(a.name, p);
      sim.startsAt.set(a.name, simNow + sim.delay());
      break;
    }
    case 'deletePod':
      sim.pods.delete(a.name);
      break;
    case 'patchPod':
      if (!pod) break;
      pod.metadata!.labels = mergeMap(pod.metadata!.labels ?? {}, a.labels);
      pod.metadata!.annotations = mergeMap(pod.metadata!.annotations ?? {}, a.annotations);
      if (a.addFinalizers) pod.metadata!.finalizers = [...new Set([...(pod.metadata!.finalizers ?? []), ...a.addFinalizers])];
      break;
    case 'setPodConditions':
      if (pod) setConditions(pod, a.write);
      break;
    case 'inPlaceUpdate': {
      if (!pod) break;
      expect(isPreparingDelete(pod), 'a PreparingDelete pod was updated').toBe(false);
      pod.metadata!.labels = mergeMap(pod.metadata!.labels ?? {}, a.labels);
      pod.metadata!.annotations = mergeMap(pod.metadata!.annotations ?? {}, a.annotations);
      let restarted = false;
      for (const [name, image] of Object.entries(a.images)) {
        const c = pod.spec!.containers.find((x) => x.name === name)!;
        c.image = image;
        const st = pod.status!.containerStatuses!.find((x) => x.name === name)!;
        st.ready = false;
        restarted = true;
      }
      if (restarted) sim.startsAt.set(a.name, simNow + sim.delay());
      recomputeReady(pod);
      break;
    }
    case 'updatePodsToDelete':
      sim.cs.spec.scaleStrategy = { ...(sim.cs.spec.scaleStrategy ?? {}), podsToDelete: a.podsToDelete };
      break;
    default:
      break;
  }
}

/** The kubelet: containers finish starting; images and imageIDs follow the spec. */
function kubelet(sim: Sim): void {
  for (const [name, at] of sim.startsAt) {
    const p = sim.pods.get(name);
    if (!p) {
      sim.startsAt.delete(name);
      continue;
    }
    if (at > simNow) continue;
    p.status!.phase = 'Running';
    for (const st of p.status!.containerStatuses!) {
      const image = p.spec!.containers.find((c) => c.name === st.name)!.image!;
      st.image = image;
      st.imageID = `id-${image}`;
      st.ready = true;
    }
    recomputeReady(p);
    sim.startsAt.delete(name);
  }
}

/** A user's hook controller: releases hooks of pods waiting on them, re-arms Updated pods. */
function hookController(sim: Sim): boolean {
  if (!sim.hooks) return false;
  let busy = false;
  for (const p of sim.pods.values()) {
    const labels = p.metadata!.labels!;
    const state = labels['lifecycle.apps.kruise.io/state'];
    const release = (state === 'PreparingDelete' || state === 'PreparingUpdate') && labels.gate === 'on';
    const rearm = state === 'Updated' && labels.gate !== 'on';
    busy ||= release || rearm;
    if (sim.delay() < 2000) continue; // act on roughly half the pods per step
    if (release) delete labels.gate;
    else if (rearm) labels.gate = 'on';
  }
  return busy;
}

interface StepResult {
  actions: PlanAction[];
  statusChanged: boolean;
  /** Containers were still starting, or the user's hook controller still had work. */
  kubeletBusy: boolean;
}

/** The pods as the planner reads them: the live objects, or the cache's frozen versions of them. */
function podsForPlan(sim: Sim): V1Pod[] {
  if (sim.planFrom === 'copies') return [...sim.pods.values()].map((p) => structuredClone(p));
  if (sim.planFrom !== 'cache') return [...sim.pods.values()];
  const cache = (sim.cached ??= new Map<string, { json: string; pod: V1Pod }>());
  return [...sim.pods.entries()].map(([name, live]): V1Pod => {
    const json = JSON.stringify(live);
    let cached = cache.get(name);
    if (cached?.json !== json) {
      cached = { json, pod: deepFreeze(structuredClone(live)) as V1Pod };
      cache.set(name, cached);
    }
    return cached.pod;
  });
}

function step(sim: Sim): StepResult {
  simNow = sim.now;
  const plan = planReconcile({
    cs: sim.cs,
    pods: podsForPlan(sim),
    pvcs: [],
    revisions: sim.revisions,
    gates: {},
    nowMs: sim.now,
    random: seededRandom(sim.now),
  });
  for (const a of plan.actions) apply(sim, a);
  const { status } = computeStatus(statusInputFor(plan, [], sim.now));
  const statusChanged = !statusEquals(sim.cs.status, status);
  sim.cs.status = status;
  const kubeletBusy = sim.startsAt.size > 0;
  sim.now += 1000;
  simNow = sim.now;
  kubelet(sim);
  const userBusy = hookController(sim);
  return { actions: plan.actions, statusChanged, kubeletBusy: kubeletBusy || userBusy };
}

const HOOKS = {
  preDelete: { labelsHandler: { gate: 'on' } },
  inPlaceUpdate: { labelsHandler: { gate: 'on' }, markPodNotReady: true },
};

function templateFor(image: string, hooks: boolean) {
  return { metadata: { labels: { app: 'demo', ...(hooks ? { gate: 'on' } : {}) } }, spec: { containers: [{ name: 'main', image }] } };
}

function newSim(replicas: number, updateType: string, seed: number, hooks = false): Sim {
  const rnd = seededRandom(seed);
  const cs = cloneSet({
    replicas,
    template: templateFor('nginx:0', hooks),
    updateStrategy: { type: updateType, maxUnavailable: 1 },
    ...(hooks ? { lifecycle: HOOKS } : {}),
  });
  cs.metadata.uid = CS_UID;
  return { cs, pods: new Map(), revisions: [], now: NOW, startsAt: new Map(), created: new Set(), delay: () => Math.floor(rnd() * 4000), hooks };
}

function settle(sim: Sim, maxSteps: number, check?: (r: StepResult) => void): number {
  for (let i = 0; i < maxSteps; i++) {
    const r = step(sim);
    check?.(r);
    if (r.actions.length === 0 && !r.statusChanged && !r.kubeletBusy) return i;
  }
  throw new Error(`did not settle in ${maxSteps} steps`);
}

/** Replicas short of available: missing pods and pods not available. */
function unavailable(sim: Sim, replicas: number): number {
  const available = [...sim.pods.values()].filter((p) => isAvailable(p, 0, sim.now)).length;
  return Math.max(0, replicas - available);
}

const rolloutCases = fc.record({
  r1: fc.integer({ min: 1, max: 5 }),
  r2: fc.integer({ min: 1, max: 6 }),
  partition: fc.integer({ min: 0, max: 7 }),
  maxUnavailable: fc.integer({ min: 0, max: 3 }),
  maxSurge: fc.integer({ min: 0, max: 2 }),
  type: fc.constantFrom('ReCreate', 'InPlaceIfPossible', 'InPlaceOnly'),
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  hooks: fc.boolean(),
});
type RolloutCase = typeof rolloutCases extends fc.Arbitrary<infer C> ? C : never;

/** No surge under InPlaceOnly, and never both budgets 0. */
function rolloutBudget(c: RolloutCase): { surge: number; maxUnavailable: number } {
  const surge = c.type === 'InPlaceOnly' ? 0 : c.maxSurge;
  return { surge, maxUnavailable: surge === 0 && c.maxUnavailable === 0 ? 1 : c.maxUnavailable };
}

/** Rolls out a new image together with the case's replica count and partition (and an in-place grace period). */
function startRollout(sim: Sim, c: RolloutCase, graceSeconds = 0): void {
  const { surge, maxUnavailable } = rolloutBudget(c);
  sim.cs.spec = {
    ...sim.cs.spec,
    replicas: c.r2,
    template: templateFor('nginx:1', c.hooks),
    updateStrategy: {
      type: c.type,
      partition: c.partition,
      maxUnavailable,
      maxSurge: surge,
      ...(graceSeconds ? { inPlaceUpdateStrategy: { gracePeriodSeconds: graceSeconds } } : {}),
    },
  };
  sim.cs.metadata.generation = 2;
}

describe('simulated rollouts', () => {
  it('a rollout without surge never has more replicas unavailable than maxUnavailable (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          replicas: fc.integer({ min: 1, max: 8 }),
          partition: fc.integer({ min: 0, max: 8 }),
          maxUnavailable: fc.integer({ min: 1, max: 3 }),
          type: fc.constantFrom('ReCreate', 'InPlaceIfPossible'),
          seed: fc.integer({ min: 1, max: 1_000_000 }),
        }),
        (c) => {
          const sim = newSim(c.replicas, c.type, c.seed);
          settle(sim, 200);
          sim.cs.spec = { ...sim.cs.spec, template: templateFor('nginx:1', false), updateStrategy: { type: c.type, partition: c.partition, maxUnavailable: c.maxUnavailable, maxSurge: 0 } };
          sim.cs.metadata.generation = 2;
          // Checked after every pass (its writes, then the kubelet, which only makes pods Ready).
          settle(sim, 400, () => expect(unavailable(sim, c.replicas)).toBeLessThanOrEqual(c.maxUnavailable));
          const updateRev = sim.cs.status!.updateRevision!;
          expect([...sim.pods.values()].filter((p) => isPodAtRevision(p, updateRev))).toHaveLength(c.replicas - Math.min(c.partition, c.replicas));
        },
      ),
      { numRuns: 200 },
    );
  });


  it('scale-out from zero settles with every pod available and the status written once per change', () => {
    const sim = newSim(4, 'ReCreate', 7);
    settle(sim, 100);
    expect(sim.pods.size).toBe(4);
    expect(sim.cs.status).toMatchObject({ replicas: 4, readyReplicas: 4, availableReplicas: 4, updatedReplicas: 4 });
    // Settled: another pass plans nothing and writes no status.
    const r = step(sim);
    expect(r.actions).toEqual([]);
    expect(r.statusChanged).toBe(false);
  });

  it('rollouts terminate at the partition with the invariants held at every step (property)', () => {
    fc.assert(
      fc.property(
        rolloutCases,
        (c) => {
          const { surge, maxUnavailable } = rolloutBudget(c);
          const sim = newSim(c.r1, c.type, c.seed, c.hooks);
          settle(sim, 200);
          const firstRevision = sim.cs.status!.updateRevision!;
          startRollout(sim, c);
          const P = Math.min(c.partition, c.r2);
          let prevActive = sim.pods.size;
          let prevNew = 0;
          settle(sim, 400, () => {
            const pods = [...sim.pods.values()];
            const updateRev = sim.cs.status!.updateRevision!;
            const active = pods.length;
            // Never more than R + maxSurge active pods (or fewer than before when shrinking).
            expect(active).toBeLessThanOrEqual(Math.max(c.r2 + surge, prevActive));
            prevActive = Math.min(prevActive, Math.max(active, c.r2 + surge));
            // Never more than R - partition pods at the update revision (beyond what was there).
            const atNew = pods.filter((p) => isPodAtRevision(p, updateRev)).length;
            expect(atNew).toBeLessThanOrEqual(Math.max(c.r2 - P, prevNew));
            prevNew = Math.max(prevNew, Math.min(atNew, c.r2 - P));
          });
          const pods = [...sim.pods.values()];
          const updateRev = sim.cs.status!.updateRevision!;
          expect(updateRev).not.toBe(firstRevision);
          expect(pods).toHaveLength(c.r2);
          expect(pods.filter((p) => isPodAtRevision(p, updateRev))).toHaveLength(c.r2 - P);
          expect(pods.filter((p) => isPodAtRevision(p, firstRevision))).toHaveLength(P);
          expect(pods.every((p) => isAvailable(p, 0, sim.now))).toBe(true);
          // Every pod ends Normal, with KruisePodReady back to True where it was set False.
          expect(pods.every((p) => p.metadata!.labels!['lifecycle.apps.kruise.io/state'] === 'Normal')).toBe(true);
          expect(pods.every((p) => p.status!.conditions!.find((x) => x.type === 'KruisePodReady')?.status === 'True')).toBe(true);
          expect(sim.cs.status).toMatchObject({ replicas: c.r2, updatedReplicas: c.r2 - P, expectedUpdatedReplicas: c.r2 - P, availableReplicas: c.r2 });
          if (c.type !== 'ReCreate' && maxUnavailable >= 1) {
            // An in-place-able rollout creates no surge pods.
            expect(sim.created.size).toBeLessThanOrEqual(Math.max(c.r1, c.r2));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("plans from the cache's frozen pods, whose facts are read once per version, exactly as from live objects read afresh (property)", () => {
    // The planners keep what they derive from a frozen pod for as long as that object lives
    // (pods/pod-memo.ts, refresh's skip of pods with nothing to do): every pass of a rollout must
    // still plan what reading each pod again would.
    fc.assert(
      fc.property(rolloutCases, fc.constantFrom(0, 2), (c, graceSeconds) => {
        const passes = (planFrom: Sim['planFrom']): PlanAction[][] => {
          const sim = newSim(c.r1, c.type, c.seed, c.hooks);
          sim.planFrom = planFrom;
          const planned: PlanAction[][] = [];
          settle(sim, 200, (r) => planned.push(r.actions));
          startRollout(sim, c, graceSeconds);
          settle(sim, 400, (r) => planned.push(r.actions));
          return planned;
        };
        expect(passes('cache')).toEqual(passes('copies'));
      }),
      { numRuns: 150 },
    );
  });
});
