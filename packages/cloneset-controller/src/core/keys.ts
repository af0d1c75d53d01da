// Well-known keys used by the planners (spec §1.9). Defined locally because
// @cloneset-suite/api-types did not export them when this core was written;
// they should move there (see the hand-off report).

export const INSTANCE_ID_LABEL = 'apps.kruise.io/cloneset-instance-id';
export const REVISION_LABEL = 'controller-revision-hash';
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
export const LIFECYCLE_STATE_LABEL = 'lifecycle.apps.kruise.io/state';
export const LIFECYCLE_TIMESTAMP_ANNOTATION = 'lifecycle.apps.kruise.io/timestamp';
export const SPECIFIED_DELETE_LABEL = 'apps.kruise.io/specified-delete';
export const INPLACE_UPDATE_STATE_ANNOTATION = 'apps.kruise.io/inplace-update-state';
export const INPLACE_UPDATE_STATE_ANNOTATION_LEGACY = 'inplace-update-state';
export const INPLACE_UPDATE_GRACE_ANNOTATION = 'apps.kruise.io/inplace-update-grace';
export const INPLACE_UPDATE_GRACE_ANNOTATION_LEGACY = 'inplace-update-grace';
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';
export const VCT_HASH_ANNOTATION = 'kruise.io/cloneset-volumeclaimtemplate-hash';
export const EXCLUDE_PREPARING_DELETE_LABEL = 'apps.kruise.io/cloneset-scaling-exclude-preparing-delete';

export const INPLACE_UPDATE_READY = 'InPlaceUpdateReady';
export const KRUISE_POD_READY = 'KruisePodReady';

export const CLONESET_API_VERSION = 'apps.kruise.io/v1alpha1';
export const CLONESET_KIND = 'CloneSet';

export const LifecycleState = {
  PreparingNormal: 'PreparingNormal',
  Normal: 'Normal',
  PreparingUpdate: 'PreparingUpdate',
  Updating: 'Updating',
  Updated: 'Updated',
  PreparingDelete: 'PreparingDelete',
} as const;
export type LifecycleState = (typeof LifecycleState)[keyof typeof LifecycleState];

/** Not-ready keys carried in the KruisePodReady condition message (§9). */
export const PRE_DELETE_HOOK_KEY = 'preDeleteHook';
export const PRE_UPDATE_HOOK_KEY = 'preUpdateHook';

/** Feature gates the planners read (decisions.md: anchor names and defaults). */
export interface FeatureGates {
  CloneSetShortHash?: boolean;
  CloneSetPartitionRollback?: boolean;
  PreparingUpdateAsUpdate?: boolean;
  RecreatePodWhenChangeVCTInCloneSetGate?: boolean;
  /** Global --cloneset-scaling-exclude-preparing-delete flag (§1.3). */
  CloneSetScalingExcludePreparingDelete?: boolean;
}

export const MAX_INT32 = 2147483647;
