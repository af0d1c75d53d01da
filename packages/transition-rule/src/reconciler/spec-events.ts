// The PodTransitionRule events that start a round: adds, deletes, resyncs, and updates that
// change the spec, the deletion mark or the finalizers. A status-only update (our own write)
// starts nothing, so a status write never re-triggers its own evaluation (the anchor's
// dozens-of-rounds-a-second quirk, spec §2.9).
import type { DeepReadonly, EventSource, SharedIndexInformer } from '@cloneset-suite/kube-runtime';
import type { PodTransitionRuleObject } from './resources.ts';

type Ptr = DeepReadonly<PodTransitionRuleObject>;

export function specEvents(source: Pick<SharedIndexInformer<PodTransitionRuleObject>, 'addEventHandler' | 'hasSynced'>): EventSource<PodTransitionRuleObject> {
  const relevant = (a: Ptr, b: Ptr): boolean =>
    a === b ||
    a.metadata?.generation !== b.metadata?.generation ||
    a.metadata?.deletionTimestamp !== b.metadata?.deletionTimestamp ||
    JSON.stringify(a.metadata?.finalizers ?? []) !== JSON.stringify(b.metadata?.finalizers ?? []);
  return {
    hasSynced: () => source.hasSynced(),
    addEventHandler: (h) =>
      source.addEventHandler({
        onAdd: (o, initial) => h.onAdd?.(o, initial),
        onUpdate: (a, b) => {
          if (relevant(a, b)) h.onUpdate?.(a, b);
        },
        onDelete: (o, unknown) => h.onDelete?.(o, unknown),
      }),
  };
}
