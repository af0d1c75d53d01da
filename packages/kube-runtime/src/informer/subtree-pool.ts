// Equal subtrees of cached objects shared through one instance. The pods of one workload repeat
// whole parts (tolerations, projected volume sources, resources, readiness gates, conditions of
// pods made in the same second): after their strings are shared, the objects and arrays around
// them are most of a cached pod's heap. Safe only because every cached object is frozen, so a
// subtree shared by two pods can never be changed through one of them.
//
// A subtree is looked up by a content key its caller builds from its children's references
// (share-equal-values.ts); each pooled subtree gets a reference (`#<id>`) that a parent's key
// uses in place of the child's content, so keys stay short. Ids are never reused, so equal keys
// mean equal content even after an entry fell out of the pool. Bounded (generational-map.ts).
import { GenerationalMap } from './generational-map.ts';

export interface SubtreePoolOptions {
  /** Entries per generation; the pool holds at most twice this (small on purpose: string-pool.ts). */
  maxEntries?: number;
  /** Subtrees with a longer content key are not pooled (nor, then, any subtree around them). */
  maxKeyLength?: number;
}

export interface SharedSubtree<T> {
  value: T;
  /** Stands for the subtree's content in a parent's key. */
  ref: string;
}

export class SubtreePool {
  private readonly entries: GenerationalMap<SharedSubtree<object>>;
  private readonly maxKeyLength: number;
  private nextId = 0;

  constructor(options: SubtreePoolOptions = {}) {
    this.entries = new GenerationalMap(options.maxEntries ?? 512);
    this.maxKeyLength = options.maxKeyLength ?? 1024;
  }

  /** The instance shared for this content key (`value` itself the first time); undefined when the key is too long to pool. */
  share<T extends object>(key: string, value: T): SharedSubtree<T> | undefined {
    if (key.length > this.maxKeyLength) return undefined;
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit as SharedSubtree<T>;
    const entry = { value, ref: `#${this.nextId++}` };
    this.entries.set(key, entry);
    return entry;
  }

  /** Entries held, at most twice maxEntries. */
  get size(): number {
    return this.entries.size;
  }
}
