import type { DeepReadonly } from '../util/deep-readonly.ts';

/** Callbacks of an informer. Objects are frozen and shared: never mutate, copy before editing. */
export interface ResourceEventHandler<T> {
  onAdd?(obj: DeepReadonly<T>, isInInitialList: boolean): void;
  /** Also called on resync with oldObj === newObj. */
  onUpdate?(oldObj: DeepReadonly<T>, newObj: DeepReadonly<T>): void;
  /**
   * obj is the last state the cache knew. finalStateUnknown is true when the deletion was only
   * inferred from a relist (client-go's DeletedFinalStateUnknown), so later changes were missed.
   */
  onDelete?(obj: DeepReadonly<T>, finalStateUnknown: boolean): void;
}

/** What a controller can watch: an informer, or anything that delivers the same callbacks. */
export interface EventSource<T> {
  addEventHandler(handler: ResourceEventHandler<T>): () => void;
  hasSynced(): boolean;
  /** ms since the source last heard from the apiserver; a controller does not act on a stale source. */
  silentForMs?(): number;
}
