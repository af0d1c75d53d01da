// Well-known keys used by the planners (OpenKruise's well-known keys), taken from api-types. The
// feature-gate set below is local: api-types does not model gates (move it there
// or to kube-runtime's config when one exists).
import { KRUISE_ANNOTATIONS, KRUISE_LABELS, KRUISE_READINESS_GATES, LIFECYCLE_STATES, NOT_READY_KEYS } from '@cloneset-suite/api-types';

export const INSTANCE_ID_LABEL = KRUISE_LABELS.cloneSetInstanceId;
export const REVISION_LABEL = KRUISE_LABELS.controllerRevisionHash;
export const POD_TEMPLATE_HASH_LABEL = KRUISE_LABELS.podTemplateHash;
export const LIFECYCLE_STATE_LABEL = KRUISE_LABELS.lifecycleState;
export const LIFECYCLE_TIMESTAMP_ANNOTATION = KRUISE_ANNOTATIONS.lifecycleTimestamp;
export const SPECIFIED_DELETE_LABEL = KRUISE_LABELS.specifiedDelete;
export const INPLACE_UPDATE_STATE_ANNOTATION = KRUISE_ANNOTATIONS.inPlaceUpdateState;
export const INPLACE_UPDATE_STATE_ANNOTATION_LEGACY = KRUISE_ANNOTATIONS.inPlaceUpdateStateLegacy;
export const INPLACE_UPDATE_GRACE_ANNOTATION = KRUISE_ANNOTATIONS.inPlaceUpdateGrace;
export const INPLACE_UPDATE_GRACE_ANNOTATION_LEGACY = KRUISE_ANNOTATIONS.inPlaceUpdateGraceLegacy;
export const POD_DELETION_COST_ANNOTATION = KRUISE_ANNOTATIONS.podDeletionCost;
export const REVISION_HASH_LABEL = KRUISE_LABELS.revisionHash;
export const VCT_HASH_ANNOTATION = KRUISE_ANNOTATIONS.volumeClaimTemplateHash;
export const EXCLUDE_PREPARING_DELETE_LABEL = KRUISE_LABELS.scalingExcludePreparingDelete;

export const INPLACE_UPDATE_READY = KRUISE_READINESS_GATES.inPlaceUpdateReady;
export const KRUISE_POD_READY = KRUISE_READINESS_GATES.kruisePodReady;

export const CLONESET_API_VERSION = 'apps.kruise.io/v1alpha1';
export const CLONESET_KIND = 'CloneSet';

export const LifecycleState = {
  PreparingNormal: LIFECYCLE_STATES.preparingNormal,
  Normal: LIFECYCLE_STATES.normal,
  PreparingUpdate: LIFECYCLE_STATES.preparingUpdate,
  Updating: LIFECYCLE_STATES.updating,
  Updated: LIFECYCLE_STATES.updated,
  PreparingDelete: LIFECYCLE_STATES.preparingDelete,
} as const;
export type LifecycleState = (typeof LifecycleState)[keyof typeof LifecycleState];

/** Not-ready keys carried in the KruisePodReady condition message (OpenKruise's lifecycle state machine). */
export const PRE_DELETE_HOOK_KEY = NOT_READY_KEYS.preDeleteHook;
export const PRE_UPDATE_HOOK_KEY = NOT_READY_KEYS.preUpdateHook;

/** Feature gates the planners read (OpenKruise's names; defaults as README, Configuration states them). */
export interface FeatureGates {
  CloneSetShortHash?: boolean;
  CloneSetPartitionRollback?: boolean;
  /** On when undefined (OpenKruise: off); only `false` turns it off. */
  PreparingUpdateAsUpdate?: boolean;
  RecreatePodWhenChangeVCTInCloneSetGate?: boolean;
  /** Global --cloneset-scaling-exclude-preparing-delete flag (OpenKruise's scaleStrategy). */
  CloneSetScalingExcludePreparingDelete?: boolean;
  /** ImagePullJobs ahead of in-place updates (OpenKruise's update features), only where the ImagePullJob CRD is served. */
  PreDownloadImageForInPlaceUpdate?: boolean;
  /** Container cpu/memory changes made in place through pods/resize (resize.ts). */
  InPlaceWorkloadVerticalScaling?: boolean;
}

export const MAX_INT32 = 2147483647;
