// Equal strings shared through one instance. JSON.parse gives every string of every object its
// own copy, so 10,000 pods of one workload hold 10,000 copies of its image, owner uid, label
// values and node names; a cache that routes its strings through a pool keeps one of each.
//
// Bounded, because values unique to one object (a timestamp, a volume name with a random suffix)
// pass through too and pods churn: two generations of at most `maxEntries` each. A value is
// looked up in the young one, then in the old one (and moved to the young one); when the young
// one is full it becomes the old one and the previous old one is dropped. Values that keep
// coming back stay; one-off values fall out after two generations. Strings longer than
// `maxLength` are not pooled, so the pool's own memory is bounded too.

export interface StringPoolOptions {
  /** Entries per generation; the pool holds at most twice this. */
  maxEntries?: number;
  /** Longer strings are returned as they are, never pooled. */
  maxLength?: number;
}

export const DEFAULT_POOL_ENTRIES = 4096;
export const DEFAULT_POOL_MAX_LENGTH = 256;

export class StringPool {
  private young = new Map<string, string>();
  private old = new Map<string, string>();
  private readonly maxEntries: number;
  private readonly maxLength: number;

  constructor(options: StringPoolOptions = {}) {
    this.maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_POOL_ENTRIES);
    this.maxLength = options.maxLength ?? DEFAULT_POOL_MAX_LENGTH;
  }

  /** The pooled instance equal to `s` (`s` itself the first time it is seen). */
  intern(s: string): string {
    if (s.length > this.maxLength) return s;
    const young = this.young.get(s);
    if (young !== undefined) return young;
    const pooled = this.old.get(s) ?? s;
    if (this.young.size >= this.maxEntries) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(s, pooled);
    return pooled;
  }

  /** Entries held, both generations (a value moved to the young one may be counted twice). */
  get size(): number {
    return this.young.size + this.old.size;
  }

  /** Whether `s` is pooled now. */
  has(s: string): boolean {
    return this.young.has(s) || this.old.has(s);
  }
}
