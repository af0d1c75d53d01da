// Model test: two operating controllers (through the SDK), one cooperation controller
// (a prot. finalizer), the lifecycle controller and a kubelet act on one pod in random order;
// every write goes through mutatePod and must pass validatePod, as the apiserver would do it.
// An operating controller may begin its id again after it finished, while the earlier run is
// still in PostCheck or Completing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POL_LABELS, POL_SERVICE_READY_GATE, lifecycleIds, parsePolKey } from '@cloneset-suite/api-types';
import { applyChanges, type LabelChanges } from '../../src/core/label-patch.ts';
import { planLifecycle } from '../../src/core/lifecycle-plan.ts';
import { mutatePod } from '../../src/core/mutate.ts';
import type { Pod } from '../../src/core/pod-state.ts';
import { allowOps, planBegin, planFinish, planUndo, type OperationAdapter, type SdkPlan } from '../../src/core/sdk.ts';
import { passAllStageGate } from '../../src/core/stage-gate.ts';
import { requestViolations, validatePod, violationMessage } from '../../src/core/validate.ts';
import { PROT } from './fixtures.ts';

type Actor = 'oc1' | 'oc2' | 'cc' | 'lc' | 'kubelet';
type OcState = 'idle' | 'begun' | 'done';

interface World {
  pod: Pod;
  /** Unix nanoseconds, as the label values are. */
  clock: bigint;
  oc: Record<'oc1' | 'oc2', { adapter: OperationAdapter; state: OcState; cancel: boolean }>;
  /** Times an operating controller did its work while a protection finalizer was on the pod. */
  unprotectedWork: number;
}

const hasProt = (pod: Pod): boolean => (pod.metadata?.finalizers ?? []).some((f) => f.startsWith('prot.podopslifecycle.kusionstack.io/'));
const conditionStatus = (pod: Pod, type: string): string | undefined => pod.status?.conditions?.find((c) => c.type === type)?.status;
const operateKeys = (pod: Pod): string[] => Object.keys(pod.metadata?.labels ?? {}).filter((k) => k.startsWith('operate.podopslifecycle.kusionstack.io/'));
const grantsOperate = (old: Pod, pod: Pod): boolean => operateKeys(pod).some((k) => !operateKeys(old).includes(k));

/** One persisted write: the mutating webhook, then the validating webhook, then the invariant. */
function write(world: World, candidate: Pod): boolean {
  const old = world.pod;
  const asked = requestViolations(candidate);
  if (asked.length > 0) throw new Error(`refused by the mutating webhook: ${violationMessage(asked)}`);
  const mutated = mutatePod(old, candidate, 'UPDATE', String(++world.clock));
  const violations = validatePod(mutated);
  if (violations.length > 0) throw new Error(`refused: ${violationMessage(violations)}\n${JSON.stringify(mutated.metadata?.labels)}`);
  if (grantsOperate(old, mutated) && hasProt(mutated)) throw new Error(`operate granted under a protection finalizer: ${JSON.stringify(mutated.metadata)}`);
  const changed = JSON.stringify(mutated) !== JSON.stringify(old);
  world.pod = mutated;
  return changed;
}

const withLabels = (pod: Pod, changes: LabelChanges): Pod => ({ ...pod, metadata: { ...pod.metadata, labels: applyChanges(pod.metadata?.labels, changes) } });

function withCondition(pod: Pod, type: string, status: string): Pod {
  const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== type);
  return { ...pod, status: { ...pod.status, conditions: [...conditions, { type, status }] } };
}

function writePlan(world: World, plan: SdkPlan): boolean {
  if (!plan.ok) throw new Error(plan.error);
  return write(world, withLabels(world.pod, plan.changes));
}

/** One step of an actor; true when it wrote something that changed the pod. */
function step(world: World, actor: Actor): boolean {
  const pod = world.pod;
  switch (actor) {
    case 'oc1':
    case 'oc2': {
      const oc = world.oc[actor];
      if (oc.state === 'idle') {
        oc.state = 'begun';
        return writePlan(world, planBegin(pod, oc.adapter, String(++world.clock)));
      }
      if (oc.state !== 'begun') return false;
      if (allowOps(pod, oc.adapter, Number(world.clock / 1_000_000n)).allowed) {
        if (hasProt(pod)) world.unprotectedWork++;
        oc.state = 'done';
        return writePlan(world, planFinish(pod, oc.adapter, String(++world.clock)));
      }
      if (oc.cancel) {
        oc.state = 'done';
        return writePlan(world, planUndo(pod, oc.adapter));
      }
      return false;
    }
    case 'cc': {
      // Traffic on when the pod is Ready and service-ready, then protect it; off, then unprotect.
      const online = conditionStatus(pod, 'Ready') === 'True' && conditionStatus(pod, POL_SERVICE_READY_GATE) === 'True';
      const finalizers = pod.metadata?.finalizers ?? [];
      if (online && !finalizers.includes(PROT)) return write(world, { ...pod, metadata: { ...pod.metadata, finalizers: [...finalizers, PROT] } });
      if (!online && finalizers.includes(PROT)) return write(world, { ...pod, metadata: { ...pod.metadata, finalizers: finalizers.filter((f) => f !== PROT) } });
      return false;
    }
    case 'kubelet': {
      // Containers are always ready: Ready follows the readiness gate.
      const ready = conditionStatus(pod, POL_SERVICE_READY_GATE) === 'True' ? 'True' : 'False';
      return conditionStatus(pod, 'Ready') === ready ? false : write(world, withCondition(pod, 'Ready', ready));
    }
    case 'lc': {
      const plan = planLifecycle({ pod, gate: (stage) => passAllStageGate.check(pod, stage), now: String(++world.clock) });
      const w = plan.write;
      if (!w) return false;
      if (w.kind === 'patchLabels') return write(world, withLabels(pod, w.changes));
      if (w.kind === 'setServiceReady') return write(world, withCondition(pod, POL_SERVICE_READY_GATE, w.status));
      return write(world, pod);
    }
  }
}

const ACTORS: readonly Actor[] = ['oc1', 'oc2', 'cc', 'lc', 'kubelet'];

/** Everyone acts in turn until nobody changes anything (or the bound says it livelocks). */
function settle(world: World): void {
  for (let round = 0; round < 200; round++) {
    let changed = false;
    for (const a of ACTORS) changed = step(world, a) || changed;
    const busy = Object.values(world.oc).some((o) => o.state === 'begun');
    if (!changed && !busy) return;
  }
  throw new Error(`did not settle: ${JSON.stringify(world.pod.metadata?.labels)}`);
}

function newWorld(cancel1: boolean, cancel2: boolean, sameType: boolean): World {
  const created = mutatePod(
    undefined,
    {
      metadata: {
        name: 'p',
        namespace: 'ns',
        labels: { 'kusionstack.io/control': 'true' },
        annotations: { 'pod.kusionstack.io/available-conditions': JSON.stringify({ expectedFinalizers: { 'Service/ns/web': PROT } }) },
      },
      spec: { containers: [{ name: 'c', image: 'i' }] },
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    },
    'CREATE',
    '1700000000000000000',
  );
  return {
    pod: created,
    clock: 1_700_000_000_000_000_000n,
    oc: {
      oc1: { adapter: { id: 'update-ctl', type: 'update', allowMultiType: true }, state: 'done', cancel: cancel1 },
      oc2: { adapter: { id: 'restart-ctl', type: sameType ? 'update' : 'restart', allowMultiType: true }, state: 'done', cancel: cancel2 },
    },
    unprotectedWork: 0,
  };
}

/** Per-id and permission labels: none may remain once every lifecycle is over. */
const lifecycleLabels = (pod: Pod): string[] => Object.keys(pod.metadata?.labels ?? {}).filter((k) => parsePolKey(k) !== undefined);

describe('PodOpsLifecycle model', () => {
  it('random interleavings: no operate under protection, no orphan label, service-available at the end', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<Actor>(...ACTORS), { maxLength: 80 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.nat({ max: 80 }),
        fc.nat({ max: 80 }),
        (schedule, cancel1, cancel2, sameType, secondStart, beginAgain) => {
          const world = newWorld(cancel1, cancel2, sameType);
          settle(world);
          expect(world.pod.metadata?.labels?.[POL_LABELS.serviceAvailable]).toBeDefined();
          world.oc.oc1.state = 'idle';
          schedule.forEach((actor, i) => {
            if (i === secondStart) world.oc.oc2.state = 'idle';
            // The first controller begins its id again once it finished (a rollback while its
            // run is in PostCheck or Completing, or an operator's retry): a fresh run.
            if (i === beginAgain && world.oc.oc1.state === 'done') world.oc.oc1.state = 'idle';
            step(world, actor);
          });
          if (world.oc.oc2.state === 'done' && secondStart >= schedule.length) world.oc.oc2.state = 'idle';
          settle(world);
          expect(world.unprotectedWork).toBe(0);
          expect(lifecycleIds(world.pod.metadata?.labels)).toEqual([]);
          expect(lifecycleLabels(world.pod)).toEqual([]);
          expect(world.pod.metadata?.labels?.[POL_LABELS.serviceAvailable]).toBeDefined();
          expect(world.pod.metadata?.finalizers).toEqual([PROT]);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
