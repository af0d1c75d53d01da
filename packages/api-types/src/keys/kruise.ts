// OpenKruise well-known keys, byte-compatible with kruise v1.8.

export const KRUISE_LABELS = {
  /** Pod, PVC: 5-character id shared by a pod and its PVCs. */
  cloneSetInstanceId: 'apps.kruise.io/cloneset-instance-id',
  /** Pod: full revision name `<cs>-<hash>`, or `<hash>` under CloneSetShortHash. */
  controllerRevisionHash: 'controller-revision-hash',
  /** Pod: always the short hash. */
  podTemplateHash: 'pod-template-hash',
  /** Pod: the CloneSet lifecycle state. */
  lifecycleState: 'lifecycle.apps.kruise.io/state',
  /** Pod: presence (any value) marks the pod for deletion. */
  specifiedDelete: 'apps.kruise.io/specified-delete',
  /** Pod label prefix treated as unavailable by PodUnavailableBudget. */
  unavailablePodPrefix: 'unavailable-pod.kruise.io/',
  /** ControllerRevision: the revision hash. */
  revisionHash: 'controller.kubernetes.io/hash',
  /** ControllerRevision: pre-download done / skipped for this revision. */
  imagePreDownloadCreated: 'apps.kruise.io/image-predownload-created',
  imagePreDownloadIgnored: 'apps.kruise.io/image-predownload-ignored',
  /** CloneSet: "true" keeps PreparingDelete pods out of the replica count. */
  scalingExcludePreparingDelete: 'apps.kruise.io/cloneset-scaling-exclude-preparing-delete',
  /** CloneSet: deletion protection policy (ResourcesDeletionProtection gate). */
  deleteProtection: 'policy.kruise.io/delete-protection',
} as const;

export const KRUISE_ANNOTATIONS = {
  /** Pod: RFC 3339 time of the last lifecycle state change. */
  lifecycleTimestamp: 'lifecycle.apps.kruise.io/timestamp',
  /** Pod: JSON record of an in-place update. */
  inPlaceUpdateState: 'apps.kruise.io/inplace-update-state',
  inPlaceUpdateStateLegacy: 'inplace-update-state',
  /** Pod: JSON of the pending update spec during the grace period. */
  inPlaceUpdateGrace: 'apps.kruise.io/inplace-update-grace',
  inPlaceUpdateGraceLegacy: 'inplace-update-grace',
  /** Pod: written by kruise-daemon. */
  runtimeContainersMeta: 'apps.kruise.io/runtime-containers-meta',
  /** Pod: int32; lower values are deleted first, an invalid value counts as 0. */
  podDeletionCost: 'controller.kubernetes.io/pod-deletion-cost',
  /** ControllerRevision: FNV hash of the volumeClaimTemplates, empty without any. */
  volumeClaimTemplateHash: 'kruise.io/cloneset-volumeclaimtemplate-hash',
  /** CloneSet: image pre-download knobs (PreDownloadImageForInPlaceUpdate gate). */
  imagePreDownloadParallelism: 'apps.kruise.io/image-predownload-parallelism',
  imagePreDownloadTimeoutSeconds: 'apps.kruise.io/image-predownload-timeout-seconds',
  imagePreDownloadMinUpdatedReadyPods: 'apps.kruise.io/image-predownload-min-updated-ready-pods',
} as const;

/** Pod readiness gates (and condition types) owned by kruise. */
export const KRUISE_READINESS_GATES = {
  inPlaceUpdateReady: 'InPlaceUpdateReady',
  kruisePodReady: 'KruisePodReady',
} as const;

/** Values of `lifecycle.apps.kruise.io/state`. */
export const LIFECYCLE_STATES = {
  preparingNormal: 'PreparingNormal',
  normal: 'Normal',
  preparingUpdate: 'PreparingUpdate',
  updating: 'Updating',
  updated: 'Updated',
  preparingDelete: 'PreparingDelete',
} as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[keyof typeof LIFECYCLE_STATES];

/** Keys in the KruisePodReady condition message that hold a pod not-ready (markPodNotReady). */
export const NOT_READY_KEYS = {
  userAgent: 'Lifecycle',
  preDeleteHook: 'preDeleteHook',
  preUpdateHook: 'preUpdateHook',
} as const;

/** Values of `policy.kruise.io/delete-protection`. */
export const DELETE_PROTECTION_POLICIES = {
  always: 'Always',
  cascading: 'Cascading',
} as const;

/** Defaults of the pre-download annotations. */
export const IMAGE_PREDOWNLOAD_DEFAULTS = { parallelism: 1, timeoutSeconds: 600 } as const;
