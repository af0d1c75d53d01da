// The PodTransitionRule events that start a round: adds, deletes, resyncs, and updates that
// change the spec, the deletion mark or the finalizers. A status-only update (our own write)
// starts nothing, so a status write never re-triggers its own evaluation (the anchor's
// quirk: Kuperator re-sends a rejected webhook's pods dozens of times a second, because each
// rejection's new traceId changes the status and that status event starts the next round).
import type { DeepReadonly, EventSource, CachedSource } from '@cloneset-suite/kube-runtime';
import { filteredUpdates } from './filtered-updates.ts';
import type { PodTransitionRuleObject } from './resources.ts';

type Ptr = DeepReadonly<PodTransitionRuleObject>;

export function specEvents(source: Pick<CachedSource<PodTransitionRuleObject>, 'addEventHandler' | 'hasSynced'>): EventSource<PodTransitionRuleObject> {
  return filteredUpdates(
    source,
    (a: Ptr, b: Ptr) =>
      a === b ||
      a.metadata?.generation !== b.metadata?.generation ||
      a.metadata?.deletionTimestamp !== b.metadata?.deletionTimestamp ||
      JSON.stringify(a.metadata?.finalizers ?? []) !== JSON.stringify(b.metadata?.finalizers ?? []),
  );
}
