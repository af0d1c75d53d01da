// Public face of the CloneSet functional core: pure planners and their data types.
export * from './core/keys.ts';
export type * from './core/types.ts';
export * from './core/plan.ts';
export * from './core/pod-state.ts';
export * from './core/revisions.ts';
export { normaliseTemplate, semanticallyEqual, canonicalQuantity } from './core/canonical.ts';
export { selectorMatches, selectorToString } from './core/selector.ts';
export { resolveKnobs, type Knobs } from './core/knobs.ts';
export { calculateDiffs, type DiffInput, type Diffs, type Tallies } from './core/diff.ts';
export { buildContext, scaleDiffs, updateDiffs, needsRecreate, type PlanContext, type ContextInput } from './core/context.ts';
export { allocateInstanceIds, randomInstanceId, slowStartBatches, podNameFor, pvcNameFor, ID_ALPHABET } from './core/instance-ids.ts';
export { buildPod } from './core/new-pod.ts';
export { ownerRefTo } from './core/owner-ref.ts';
export { sortForScaleIn, sameNodeRanks, spreadRanks, deletionCost } from './core/scale-in-order.ts';
export { planScale, chooseScaleIn, planPodsToDeleteCleanup, planPvcCleanup, deleteOrHold } from './core/scale-plan.ts';
export { isHooked, isAllHooked, kruisePodReadyChange } from './core/lifecycle.ts';
export { inPlaceDiff, revisionInPlaceDiff, type InPlaceDiff } from './core/inplace.ts';
export { planUpdate, updateCandidates, limitByMaxUnavailable } from './core/update-plan.ts';
export { planRefresh, refreshPod, nextLifecycleState } from './core/refresh.ts';
export { sortForUpdate, defaultUpdateOrder, applyPriority, applyScatter, scatterOne } from './core/update-order.ts';
export {
  isInPlaceUpdateComplete,
  readUpdateState,
  readGrace,
  type InPlaceUpdateState,
  type InPlaceUpdateGrace,
} from './core/inplace-state.ts';
export { computeStatus, statusEquals, type StatusInput, type StatusResult } from './core/status.ts';
export {
  planImagePreDownload,
  minUpdatedReadyPods,
  IMAGE_PREDOWNLOAD_CREATED_LABEL,
  IMAGE_PREDOWNLOAD_IGNORED_LABEL,
  type ImagePullJobManifest,
  type PreDownloadAction,
  type PreDownloadOptions,
} from './core/image-predownload.ts';
export { planReconcile, statusInputFor, type ReconcileInput, type ReconcilePlan } from './core/reconcile-plan.ts';
// The imperative shell: informers, work queue, plan execution, status writes.
export { createCloneSetController, CLONESET_CONTROLLER_NAME, type CloneSetControllerOptions } from './reconciler/controller.ts';
