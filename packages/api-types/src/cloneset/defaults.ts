// CloneSet admission defaulting as OpenKruise's webhook does it, as a pure function: it returns a defaulted
// copy and never touches its input.
import { isDeepStrictEqual } from 'node:util';
import { DEFAULT_UPDATE_MAX_UNAVAILABLE } from '../intstr.ts';
import { defaultPersistentVolumeClaimInPlace, defaultPodTemplateInPlace } from './pod-defaults.ts';
import type { CloneSet } from './schema.ts';

export const CLONESET_DEFAULT_REPLICAS = 1;
export const CLONESET_DEFAULT_REVISION_HISTORY_LIMIT = 10;

export interface CloneSetDefaultingOptions {
  /** The stored object on UPDATE: templates are defaulted only when they changed. */
  old?: CloneSet;
  /** The TemplateNoDefaults feature gate: skip pod and PVC template defaults. */
  templateNoDefaults?: boolean;
}

export function defaultCloneSet(cloneSet: CloneSet, options: CloneSetDefaultingOptions = {}): CloneSet {
  const cs = structuredClone(cloneSet);
  // Admission sees raw JSON: leave a malformed object for validation to report.
  const spec = cs.spec as CloneSet['spec'] | undefined;
  if (spec === undefined || spec === null || typeof spec !== 'object') return cs;
  spec.replicas ??= CLONESET_DEFAULT_REPLICAS;
  spec.revisionHistoryLimit ??= CLONESET_DEFAULT_REVISION_HISTORY_LIMIT;

  if (options.templateNoDefaults !== true) {
    const old = options.old?.spec;
    const template = spec.template as CloneSet['spec']['template'] | undefined;
    if (template && (old === undefined || !isDeepStrictEqual(template, old.template))) defaultPodTemplateInPlace(template);
    if (old === undefined || !isDeepStrictEqual(spec.volumeClaimTemplates, old.volumeClaimTemplates)) {
      for (const claim of spec.volumeClaimTemplates ?? []) defaultPersistentVolumeClaimInPlace(claim);
    }
  }

  // updateStrategy is a struct (not a pointer) upstream, so it always exists once defaulted.
  const strategy = (spec.updateStrategy ??= {});
  if (strategy.type === undefined || (strategy.type as string) === '') strategy.type = 'ReCreate';
  if (strategy.type === 'InPlaceIfPossible' || strategy.type === 'InPlaceOnly') strategy.inPlaceUpdateStrategy ??= {};
  strategy.partition ??= 0;
  strategy.maxUnavailable ??= DEFAULT_UPDATE_MAX_UNAVAILABLE;
  strategy.maxSurge ??= 0;
  return cs;
}
