// An informer's events with its updates filtered: adds, deletes and resyncs pass; an update
// passes only when `relevant(old, new)` says it changes what the controller reads.
import type { DeepReadonly, EventSource, KubeObject, CachedSource } from '@cloneset-suite/kube-runtime';

export function filteredUpdates<T extends KubeObject>(
  source: Pick<CachedSource<T>, 'addEventHandler' | 'hasSynced'>,
  relevant: (before: DeepReadonly<T>, after: DeepReadonly<T>) => boolean,
): EventSource<T> {
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
