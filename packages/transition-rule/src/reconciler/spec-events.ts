// The PodTransitionRule events that start a round: adds, deletes, resyncs, and updates that
// change the spec, the deletion mark or the finalizers. A status-only update (our own write)
// starts nothing, so a status write never re-triggers its own evaluation (the anchor's
// dozens-of-rounds-a-second quirk, spec §2.9).
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
