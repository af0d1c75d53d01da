// Whether a CRD serves its opt-in version (CloneSet apps.kruise.io/v1beta1): only when the
// operator asks (--serve-v1beta1), or while `status.storedVersions` lists it, because an object
// stored in a version the CRD no longer serves cannot be read (the apiserver refuses such a CRD
// anyway). The CRD is marked when the opt-in put the version there, so a manager started without
// the opt-in can tell an operator switching it off (refused while stored) from a cluster that
// came with the version stored (kept without being asked). See the README, "Opting in to
// apps.kruise.io/v1beta1".
import type { CrdVersion } from '@cloneset-suite/api-types';
import { jsonPointerEscape, type JsonPatchOperation } from '@cloneset-suite/kube-runtime';

/** Set on the CRD while the opt-in serves the version. */
export const OPT_IN_ANNOTATION = 'cloneset-suite.io/serve-v1beta1';

/** What a CRD holds that the decision reads (any of it may be missing). */
export interface CrdVersionsState {
  metadata?: { annotations?: Record<string, string> };
  spec?: { versions?: readonly { name: string }[] };
  status?: { storedVersions?: readonly string[] };
}

export type OptInVersionDecision =
  | { serve: true; why: 'opted-in' }
  /** Not asked for, but stored: kept, and said once. */
  | { serve: true; why: 'stored'; message: string }
  /** The opt-in was switched off while the version is still stored: refused, kept served. */
  | { serve: true; why: 'switch-off-refused'; message: string }
  | { serve: false };

/** How to move stored objects off the version, for the messages. */
export function migrationStep(crdName: string, version: string): string {
  return `rewrite every CloneSet so it is stored as v1alpha1 (kubectl get clonesets.v1alpha1.apps.kruise.io -A -o json | kubectl replace -f -), then drop ${version} from status.storedVersions (kubectl patch crd ${crdName} --subresource=status --type=merge -p '{"status":{"storedVersions":["v1alpha1"]}}')`;
}

export function decideOptInVersion(crdName: string, state: CrdVersionsState, version: string, optIn: boolean): OptInVersionDecision {
  if (optIn) return { serve: true, why: 'opted-in' };
  if (!(state.status?.storedVersions ?? []).includes(version)) return { serve: false };
  const stored = `status.storedVersions of ${crdName} lists ${version}`;
  if (state.metadata?.annotations?.[OPT_IN_ANNOTATION] === 'true') {
    return { serve: true, why: 'switch-off-refused', message: `refusing to stop serving ${version}: ${stored}, so objects stored as ${version} would become unreadable; to switch it off, first ${migrationStep(crdName, version)}` };
  }
  return { serve: true, why: 'stored', message: `${version} stays served although --serve-${version} is off: ${stored}; to stop serving it, ${migrationStep(crdName, version)}` };
}

const annotationPath = `/metadata/annotations/${jsonPointerEscape(OPT_IN_ANNOTATION)}`;

/**
 * The JSON-patch operations that make the CRD serve the version or not, as `decision` says, and
 * keep the opt-in's mark in step (pure). Serving needs a conversion webhook: the caller writes
 * the conversion stanza before these operations, in the same patch.
 */
export function servedVersionOps(state: CrdVersionsState, version: CrdVersion, decision: OptInVersionDecision): JsonPatchOperation[] {
  const versions = state.spec?.versions ?? [];
  const index = versions.findIndex((v) => v.name === version.name);
  const annotations = state.metadata?.annotations;
  const marked = annotations?.[OPT_IN_ANNOTATION] === 'true';
  const ops: JsonPatchOperation[] = [];
  if (decision.serve && index < 0) ops.push({ op: 'add', path: '/spec/versions/-', value: version });
  if (!decision.serve && index >= 0) ops.push({ op: 'remove', path: `/spec/versions/${index}` });
  const wantMark = decision.serve && decision.why !== 'stored';
  if (wantMark && !marked) ops.push(annotations ? { op: 'add', path: annotationPath, value: 'true' } : { op: 'add', path: '/metadata/annotations', value: { [OPT_IN_ANNOTATION]: 'true' } });
  if (!wantMark && annotations && OPT_IN_ANNOTATION in annotations) ops.push({ op: 'remove', path: annotationPath });
  return ops;
}
