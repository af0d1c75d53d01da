// Which PodTransitionRule updates start a round (the controller's update predicate; adds, deletes
// and resyncs always do): those that change the spec, the deletion mark or the finalizers. A
// status-only update (our own write) starts nothing, so a status write never re-triggers its own
// evaluation (the anchor's quirk: Kuperator re-sends a rejected webhook's pods dozens of times a
// second, because each rejection's new traceId changes the status and that status event starts
// the next round).
import type { DeepReadonly } from '@cloneset-suite/kube-runtime';
import type { PodTransitionRuleObject } from './resources.ts';

type Ptr = DeepReadonly<PodTransitionRuleObject>;

export function specChanged(before: Ptr, after: Ptr): boolean {
  return (
    before.metadata?.generation !== after.metadata?.generation ||
    before.metadata?.deletionTimestamp !== after.metadata?.deletionTimestamp ||
    JSON.stringify(before.metadata?.finalizers ?? []) !== JSON.stringify(after.metadata?.finalizers ?? [])
  );
}
