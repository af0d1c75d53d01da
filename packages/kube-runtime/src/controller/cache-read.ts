// What a key's reconcile starts from (kube-rs hands the reconciler the cached object): the primary
// object as the cache holds it, once the cache has shown every write of ours that concerns it.
// Planning from a cache older than our own writes could spend a budget twice (maxUnavailable) or
// take a status field back, so the key waits; the event that shows the write brings it back, and
// a safety requeue covers a write whose event never comes (until its expectation times out).
//
//   cache holds                                                      reconcile gets
//   no object, or one the controller's `when` turns away            nothing: its kept state is forgotten
//   the object below the version our last write on it returned      nothing yet: requeued
//   an owned object (tracked) below the version our write returned  nothing yet: requeued
//   otherwise                                                       the cached object
import type { KubeObject } from '../client/types.ts';
import type { ResourceVersionExpectations } from '../expectations.ts';
import type { Store } from '../informer/store.ts';
import type { DeepReadonly } from '../util/deep-readonly.ts';
import { controllerOwnerKey, type GroupKind } from './handlers.ts';

/** How soon a key waiting for the cache to show our own write is looked at again, should no event bring it back. */
export const OWN_WRITE_RECHECK_MS = 1_000;

export type CacheRead<T> =
  | { readonly kind: 'current'; readonly obj: DeepReadonly<T> }
  | { readonly kind: 'gone' }
  /** `keys`: the objects whose cached version is older than our write. */
  | { readonly kind: 'behindOwnWrites'; readonly keys: readonly string[] };

export interface PrimaryCache<T> {
  readonly store: Pick<Store<T>, 'getByKey'>;
  readonly when: ((obj: DeepReadonly<T>) => boolean) | undefined;
  /** Versions of our own writes on the primary, when tracked. */
  readonly writes: ResourceVersionExpectations | undefined;
}

/** An owned source whose own writes are tracked: its objects controlled by the key must be current too. */
export interface OwnedWrites {
  readonly store: Pick<Store<KubeObject>, 'getByKey'>;
  readonly writes: ResourceVersionExpectations;
  readonly owner: GroupKind;
}

export function readPrimary<T extends KubeObject>(key: string, primary: PrimaryCache<T>, owned: readonly OwnedWrites[]): CacheRead<T> {
  const obj = primary.store.getByKey(key);
  if (!obj || (primary.when && !primary.when(obj))) return { kind: 'gone' };
  const behind: string[] = [];
  if (primary.writes && !primary.writes.satisfied(key, obj.metadata?.resourceVersion)) behind.push(key);
  for (const o of owned) {
    // Only objects with a write in flight are looked at: a handful, not every owned object.
    for (const written of o.writes.pendingKeys()) {
      const cached = o.store.getByKey(written);
      if (cached && controllerOwnerKey(cached, o.owner) === key && !o.writes.satisfied(written, cached.metadata?.resourceVersion)) behind.push(written);
    }
  }
  return behind.length > 0 ? { kind: 'behindOwnWrites', keys: behind } : { kind: 'current', obj };
}
