// Scans of the small lists inside cached objects (conditions, ownerReferences, readinessGates,
// container statuses). The informer caches freeze every object, and V8 runs the callback
// builtins (find, some, filter) on frozen arrays on a slow path, several times slower than on a
// plain array; the per-pod helpers every pass calls thousands of times use these loops instead.

/** Array.prototype.find, also fast on a frozen array; an absent list has no match. */
export function findIn<T>(items: readonly T[] | undefined, match: (item: T) => boolean): T | undefined {
  if (!items) return undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as T;
    if (match(item)) return item;
  }
  return undefined;
}

/** Array.prototype.some, also fast on a frozen array; an absent list has no match. */
export function someIn<T>(items: readonly T[] | undefined, match: (item: T) => boolean): boolean {
  if (!items) return false;
  for (let i = 0; i < items.length; i++) {
    if (match(items[i] as T)) return true;
  }
  return false;
}
