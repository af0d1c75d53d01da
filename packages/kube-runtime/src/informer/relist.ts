// A relist, decided as data. The listed pages are collected into a map that reuses the cached
// instance of every object whose resourceVersion did not change, so a relist of an unchanged
// cluster allocates no second copy of the cache; the map then replaces the store through the
// changes planned here, all at once, so no reader ever sees half a relist.
import type { ObjectMetaLike } from '../keys.ts';

export type RelistChange<O> =
  | { type: 'add'; key: string; obj: O }
  | { type: 'update'; key: string; old: O; obj: O }
  | { type: 'delete'; key: string; old: O };

/** What the relist is compared against: the cache as it stood before the list began. */
export interface RelistBase<O> {
  keys(): Iterable<string>;
  getByKey(key: string): O | undefined;
}

export function sameVersion(a: ObjectMetaLike | undefined, b: ObjectMetaLike): boolean {
  return a !== undefined && a.metadata?.resourceVersion === b.metadata?.resourceVersion;
}

/**
 * The changes that turn `base` into exactly `listed`: an add per new key, an update per key whose
 * resourceVersion moved, a delete per key no longer listed. Listed order first, deletes last.
 */
export function planRelist<O extends ObjectMetaLike>(base: RelistBase<O>, listed: ReadonlyMap<string, O>): RelistChange<O>[] {
  const changes: RelistChange<O>[] = [];
  for (const [key, obj] of listed) {
    const old = base.getByKey(key);
    if (old === undefined) changes.push({ type: 'add', key, obj });
    else if (!sameVersion(old, obj)) changes.push({ type: 'update', key, old, obj });
  }
  for (const key of base.keys()) {
    if (listed.has(key)) continue;
    const old = base.getByKey(key);
    if (old !== undefined) changes.push({ type: 'delete', key, old });
  }
  return changes;
}
