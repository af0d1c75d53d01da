// The feature gates of `--feature-gates`, with OpenKruise's names and our defaults (root
// README, "Configuration"). One table for every reader: the controller-manager parses its flag
// against it, and kubectl-cloneset's `plan` takes the same flag to plan as the manager does.
// The planner reads the CloneSet gates (FeatureGates in keys.ts); the manager's CloneSet
// webhooks read TemplateNoDefaults and ResourcesDeletionProtection.
export const FEATURE_GATE_DEFAULTS = {
  /** Pods' controller-revision-hash label carries only the hash. */
  CloneSetShortHash: false,
  /** A partition raised above the updated count rolls pods back to the current revision. */
  CloneSetPartitionRollback: false,
  /**
   * Pods in PreparingUpdate count as updated when scaling. On here, off in OpenKruise (whose CI
   * turns it on): off, a pod re-created while another waits in its in-place hook comes at the
   * new revision, and more pods end up updated than the partition allows.
   */
  PreparingUpdateAsUpdate: true,
  /** A volumeClaimTemplates change recreates pods. */
  RecreatePodWhenChangeVCTInCloneSetGate: false,
  /** The CloneSet webhook skips pod-template defaults. */
  TemplateNoDefaults: false,
  /** The `policy.kruise.io/delete-protection` label guards CloneSet deletion. */
  ResourcesDeletionProtection: false,
  /** Create ImagePullJobs before in-place updates (when the CRD exists). */
  PreDownloadImageForInPlaceUpdate: false,
  /** Container cpu/memory changes are made in place through the pods/resize subresource. */
  InPlaceWorkloadVerticalScaling: false,
} as const;

export type FeatureGateName = keyof typeof FEATURE_GATE_DEFAULTS;

export const FEATURE_GATE_NAMES = Object.keys(FEATURE_GATE_DEFAULTS) as FeatureGateName[];
