// Defence in depth: a selector that excludes the labels the controller adds
// (pod-template-hash, controller-revision-hash, instance id, lifecycle state) makes every new
// pod one the next pass releases, and the pass after replaces it: pods without end, each one
// orphaned. Admission refuses such a spec; this catches one that got past it (created before
// the webhook, or with the webhook bypassed) before a single pod is created.
import type { V1Pod } from '@kubernetes/client-node';
import { podLabels, podName } from '../pods/pod-state.ts';
import { selectorMatches, selectorToString } from '../selector.ts';
import type { CloneSetLike } from '../types.ts';

export interface SelfReleaseRefusal {
  /** The pod (as it would be created) the selector does not match. */
  pod: string;
  message: string;
}

/** The first pod of `toCreate` the CloneSet's own selector would release, as a refusal. */
export function selfReleaseRefusal(cs: CloneSetLike, toCreate: readonly V1Pod[]): SelfReleaseRefusal | undefined {
  const escaping = toCreate.find((p) => !selectorMatches(cs.spec.selector, podLabels(p)));
  if (!escaping) return undefined;
  const labels = Object.entries(podLabels(escaping))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return {
    pod: podName(escaping),
    message:
      `not creating pods: spec.selector (${selectorToString(cs.spec.selector)}) does not match pod ${podName(escaping)} ` +
      `as it would be created (labels ${labels}), so it would be released at once and replaced without end; ` +
      'the selector must match the template labels plus the labels the controller adds',
  };
}
