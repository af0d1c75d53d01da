// What can be updated in place (OpenKruise's in-place rules): container images and template metadata, and with
// the InPlaceWorkloadVerticalScaling gate container cpu/memory (resize.ts), but never a restart
// (restart.ts); anything else means recreate.
import type { V1ControllerRevision, V1PodTemplateSpec } from '@kubernetes/client-node';
import { semanticallyEqual } from '../revisions/canonical.ts';
import { goPodTemplate } from '../revisions/go-template-encoder.ts';
import { VCT_HASH_ANNOTATION } from '../keys.ts';
import { containerResize, qosClass } from './resize.ts';
import type { ContainerResources } from '../plan.ts';
import { restartsPods } from './restart.ts';
import { templateOfRevision } from '../revisions/revisions.ts';

export interface InPlaceDiff {
  /** container name -> new image */
  images: Record<string, string>;
  /** Template metadata changes as a merge patch (null removes). */
  labels: Record<string, string | null>;
  annotations: Record<string, string | null>;
  /** container name -> the cpu/memory to write through pods/resize (InPlaceWorkloadVerticalScaling). */
  resources: Record<string, ContainerResources>;
}

export interface InPlaceOptions {
  /** InPlaceWorkloadVerticalScaling: container cpu/memory changes are made with pods/resize. */
  verticalScaling?: boolean;
}

function mapPatch(from: Record<string, string> = {}, to: Record<string, string> = {}): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(to)) if (from[k] !== v) out[k] = v;
  for (const k of Object.keys(from)) if (!Object.hasOwn(to, k)) out[k] = null;
  return out;
}

/** The in-place diff from one template to another, or undefined when it needs a recreate. */
export function inPlaceDiff(from: V1PodTemplateSpec, to: V1PodTemplateSpec, opts: InPlaceOptions = {}): InPlaceDiff | undefined {
  if (restartsPods(from, to)) return undefined;
  const fromContainers = from.spec?.containers ?? [];
  const toContainers = to.spec?.containers ?? [];
  if (fromContainers.length !== toContainers.length) return undefined;
  const images: Record<string, string> = {};
  const resources: Record<string, ContainerResources> = {};
  let resizable = true;
  const patched = fromContainers.map((c, i) => {
    const target = toContainers[i];
    if (!target || target.name !== c.name) return c;
    if (target.image !== undefined && target.image !== c.image) images[c.name] = target.image;
    if (!opts.verticalScaling) return { ...c, image: target.image };
    const resize = containerResize(c, target);
    if (resize === undefined) resizable = false;
    else if (resize !== 'none') resources[c.name] = resize;
    return { ...c, image: target.image, ...(resize === undefined ? {} : { resources: target.resources }) };
  });
  if (!resizable || !semanticallyEqual({ ...from.spec, containers: patched }, to.spec)) return undefined;
  // The apiserver refuses a resize that changes the pod's QoS class (OpenKruise recreates then too).
  if (Object.keys(resources).length > 0 && qosClass(from.spec) !== qosClass(to.spec)) return undefined;
  return {
    images,
    labels: mapPatch(from.metadata?.labels, to.metadata?.labels),
    annotations: mapPatch(from.metadata?.annotations, to.metadata?.annotations),
    resources,
  };
}

/**
 * In-place diff between two revisions, honouring RecreatePodWhenChangeVCTInCloneSetGate
 * (as OpenKruise: differing VCT hashes forbid in-place unless InPlaceOnly; a missing annotation is compatible).
 */
export function revisionInPlaceDiff(
  from: V1ControllerRevision,
  to: V1ControllerRevision,
  opts: { vctGate: boolean; inPlaceOnly: boolean } & InPlaceOptions,
): InPlaceDiff | undefined {
  if (opts.vctGate && !opts.inPlaceOnly) {
    const a = from.metadata?.annotations?.[VCT_HASH_ANNOTATION];
    const b = to.metadata?.annotations?.[VCT_HASH_ANNOTATION];
    if (a !== undefined && b !== undefined && a !== b) return undefined;
  }
  return inPlaceDiff(goTemplateOf(from), goTemplateOf(to), { verticalScaling: !!opts.verticalScaling });
}

/** Whether moving a pod between the two revisions is a restart (restart.ts): it re-creates the pod. */
export function revisionsRestart(from: V1ControllerRevision, to: V1ControllerRevision): boolean {
  return restartsPods(goTemplateOf(from), goTemplateOf(to));
}

// Asked once per pod and pass for the same few revisions: encode each revision object once.
const goTemplates = new WeakMap<V1ControllerRevision, V1PodTemplateSpec>();

/**
 * The revision's template as Go's types see it: a revision written by an earlier version (the
 * raw template) and one in OpenKruise's form differ only where Go cannot tell a value from unset.
 */
function goTemplateOf(rev: V1ControllerRevision): V1PodTemplateSpec {
  let template = goTemplates.get(rev);
  if (!template) {
    template = goPodTemplate(templateOfRevision(rev)) as V1PodTemplateSpec;
    goTemplates.set(rev, template);
  }
  return template;
}
