// The read side of an informer (kube-rs's Store, apart from its Writer): what controllers, webhooks
// and metrics read. Only the informer's reflector writes to it (SharedIndexInformer's run, apply,
// beginReplace); readers get frozen, shared objects.
import type { DeepReadonly } from '../util/deep-readonly.ts';
import type { EventSource } from './types.ts';

export interface Store<T> {
  get(namespace: string | undefined, name: string): DeepReadonly<T> | undefined;
  getByKey(key: string): DeepReadonly<T> | undefined;
  /** From the cache, through an index where the query allows it. */
  list(query?: { namespace?: string; labelSelector?: string }): DeepReadonly<T>[];
  byIndex(indexName: string, value: string): DeepReadonly<T>[];
}

/** A cache a controller reads and takes events from. */
export interface CachedSource<T> extends Store<T>, EventSource<T> {}
