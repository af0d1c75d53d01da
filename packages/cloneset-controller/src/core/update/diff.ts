// The diff engine shared by Scale and Update (OpenKruise's calculateDiffsWithExpectation). Pure arithmetic over the
// active claimed pods and the resolved knobs (OpenKruise's knob resolution); the callers supply the
// predicates, because Scale and Update disagree on what "new" means (OpenKruise's calculateDiffsWithExpectation).
import type { V1Pod } from '@kubernetes/client-node';
import { isPreparingDelete } from '../pods/pod-state.ts';

export interface DiffInput {
  /** R */
  replicas: number;
  /** P, resolved (OpenKruise's knob resolution) */
  partition: number;
  /** S, resolved (0 while paused) */
  maxSurge: number;
  /** U, resolved (rounding depends on S) */
  maxUnavailable: number;
  /** SU, resolved (MaxInt32 when unset) */
  scaleMaxUnavailable: number;
  /** Active, claimed pods. */
  pods: readonly V1Pod[];
  isNew: (pod: V1Pod) => boolean;
  isSpecifiedDelete: (pod: V1Pod) => boolean;
  isAvailable: (pod: V1Pod) => boolean;
  currentEqualsUpdate: boolean;
  /** CloneSetPartitionRollback gate. */
  partitionRollback: boolean;
  /** exclude-preparing-delete label or flag (OpenKruise's scaleStrategy). */
  excludePreparingDelete: boolean;
  /**
   * A fix over OpenKruise (kruise #2369, surge thrash on in-place rollouts): whether moving this pod to its target revision would recreate
   * it. When given, update surge is only spent on such pods, so in-place-able
   * rollouts create no surge pods. Omitted: every pod counts (Kruise behaviour).
   * Not applied when U = 0: there the surge is the only update budget.
   */
  needsRecreate?: (pod: V1Pod) => boolean;
}

export interface Tallies {
  activeNew: number;
  activeOld: number;
  preDeletingNew: number;
  preDeletingOld: number;
  specifiedDeleteNew: number;
  specifiedDeleteOld: number;
  unavailableNew: number;
  unavailableOld: number;
  /** T_unavail = Q + X (specified-delete pods never count). */
  totalUnavailable: number;
}

export interface Diffs {
  scaleUpNum: number;
  scaleUpNumOld: number;
  scaleUpLimit: number;
  scaleDownNum: number;
  scaleDownNumOld: number;
  deleteReadyLimit: number;
  useSurge: number;
  useSurgeOld: number;
  updateNum: number;
  updateMaxUnavailable: number;
  tallies: Tallies;
}

export function tally(input: DiffInput): Tallies {
  const t: Tallies = {
    activeNew: 0,
    activeOld: 0,
    preDeletingNew: 0,
    preDeletingOld: 0,
    specifiedDeleteNew: 0,
    specifiedDeleteOld: 0,
    unavailableNew: 0,
    unavailableOld: 0,
    totalUnavailable: 0,
  };
  for (const pod of input.pods) {
    const isNew = input.isNew(pod);
    if (isPreparingDelete(pod)) {
      if (isNew) t.preDeletingNew++;
      else t.preDeletingOld++;
      continue;
    }
    if (isNew) t.activeNew++;
    else t.activeOld++;
    if (input.isSpecifiedDelete(pod)) {
      if (isNew) t.specifiedDeleteNew++;
      else t.specifiedDeleteOld++;
    } else if (!input.isAvailable(pod)) {
      if (isNew) t.unavailableNew++;
      else t.unavailableOld++;
    }
  }
  t.totalUnavailable = t.preDeletingNew + t.preDeletingOld + t.unavailableNew + t.unavailableOld;
  return t;
}

export function calculateDiffs(input: DiffInput): Diffs {
  const R = input.replicas;
  const P = input.partition;
  const S = input.maxSurge;
  const U = input.maxUnavailable;
  const t = tally(input);

  // Update distance
  let oldDiff = t.activeOld - P;
  let newDiff = t.activeNew - (R - P);
  if (input.currentEqualsUpdate || !input.partitionRollback) {
    oldDiff = Math.max(oldDiff, 0);
    newDiff = Math.min(newDiff, 0);
  }

  // Surge
  let useSurge = 0;
  let useSurgeOld = 0;
  if (S > 0) {
    const D = t.specifiedDeleteNew + t.specifiedDeleteOld;
    let scaleSurge = 0;
    let scaleSurgeOld = 0;
    if (D > 0) {
      scaleSurge = Math.min(Math.max(t.totalUnavailable + D - U, 0), D);
      scaleSurgeOld = Math.max(scaleSurge - t.specifiedDeleteNew, 0);
    }
    let updateSurge = 0;
    let updateSurgeOld = 0;
    if ((oldDiff > 0 && newDiff < 0) || (oldDiff < 0 && newDiff > 0)) {
      if (Math.abs(oldDiff) <= Math.abs(newDiff)) {
        updateSurge = Math.abs(oldDiff);
        if (oldDiff < 0) updateSurgeOld = updateSurge;
      } else {
        updateSurge = Math.abs(newDiff);
        if (newDiff > 0) updateSurgeOld = updateSurge;
      }
      // With U = 0 surge is the only budget an in-place update can spend, so the cap
      // would deadlock the rollout (found by the rollout simulation): keep Kruise's surge.
      if (input.needsRecreate && U > 0) {
        // Pods moving forward are old ones; moving back (rollback) are new ones.
        const forward = oldDiff > 0;
        const needsRecreate = input.needsRecreate;
        const recreating = input.pods.filter(
          (p) => !isPreparingDelete(p) && input.isNew(p) !== forward && !input.isSpecifiedDelete(p) && needsRecreate(p),
        ).length;
        updateSurge = Math.min(updateSurge, recreating);
        updateSurgeOld = Math.min(updateSurgeOld, recreating);
      }
    }
    const [surge, surgeOld] = scaleSurge >= updateSurge ? [scaleSurge, scaleSurgeOld] : [updateSurge, updateSurgeOld];
    useSurge = Math.min(S, surge);
    useSurgeOld = Math.min(useSurge, surgeOld);
  }

  // Scale numbers
  let total = input.pods.length;
  let totalOld = t.activeOld + t.preDeletingOld;
  if (input.excludePreparingDelete) {
    total -= t.preDeletingNew + t.preDeletingOld;
    totalOld -= t.preDeletingOld;
  }
  const expectedTotal = R + useSurge;
  const expectedOld = P + useSurgeOld;
  const D = t.specifiedDeleteNew + t.specifiedDeleteOld;

  let scaleUpNum = 0;
  let scaleUpNumOld = 0;
  let scaleUpLimit = 0;
  if (expectedTotal > total) {
    scaleUpNum = expectedTotal - total;
    scaleUpNumOld = Math.max(expectedOld - totalOld, 0);
    scaleUpLimit = Math.min(scaleUpNum, Math.max(input.scaleMaxUnavailable - t.totalUnavailable, 0));
  }
  let scaleDownNum = 0;
  let scaleDownNumOld = 0;
  const down = total - t.specifiedDeleteOld - t.specifiedDeleteNew - expectedTotal;
  if (down > 0) {
    scaleDownNum = down;
    scaleDownNumOld = Math.max(totalOld - t.specifiedDeleteOld - expectedOld, 0);
  }
  const deleteReadyLimit = D > 0 || scaleDownNum > 0 ? Math.max(U + (total - R) - t.totalUnavailable, 0) : 0;

  // Update numbers
  const updateNum = Math.abs(oldDiff) <= Math.abs(newDiff) ? oldDiff : -newDiff;
  const updateMaxUnavailable = updateNum !== 0 ? U + total - R : 0;

  return {
    scaleUpNum,
    scaleUpNumOld,
    scaleUpLimit,
    scaleDownNum,
    scaleDownNumOld,
    deleteReadyLimit,
    useSurge,
    useSurgeOld,
    updateNum,
    updateMaxUnavailable,
    tallies: t,
  };
}
