// Feature gates with the anchors' names and defaults (but PreparingUpdateAsUpdate, on here), set as
// in Kubernetes:
// --feature-gates=CloneSetShortHash=true,TemplateNoDefaults=false.
import { ValueError, parseBool, parsePairs, type RawValue } from './values.ts';

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
} as const;

export type FeatureGateName = keyof typeof FEATURE_GATE_DEFAULTS;
export type FeatureGates = Record<FeatureGateName, boolean>;

export const FEATURE_GATE_NAMES = Object.keys(FEATURE_GATE_DEFAULTS) as FeatureGateName[];

function isGateName(name: string): name is FeatureGateName {
  return Object.hasOwn(FEATURE_GATE_DEFAULTS, name);
}

export function parseFeatureGates(raw: RawValue): FeatureGates {
  const gates: FeatureGates = { ...FEATURE_GATE_DEFAULTS };
  for (const [name, value] of parsePairs(raw)) {
    if (!isGateName(name)) throw new ValueError(`unknown feature gate "${name}" (known: ${FEATURE_GATE_NAMES.join(', ')})`);
    try {
      gates[name] = parseBool(value);
    } catch {
      throw new ValueError(`feature gate ${name} must be true or false, got "${value}"`);
    }
  }
  return gates;
}

export function formatFeatureGates(gates: FeatureGates): string {
  return FEATURE_GATE_NAMES.filter((n) => gates[n] !== FEATURE_GATE_DEFAULTS[n])
    .map((n) => `${n}=${gates[n]}`)
    .join(',');
}
