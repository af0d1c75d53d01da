// Equal strings shared through one instance. JSON.parse gives every string of every object its
// own copy, so 10,000 pods of one workload hold 10,000 copies of its image, owner uid, label
// values and node names; a cache that routes its strings through a pool keeps one of each.
// Each pooled string gets a short reference (`'<id>`) that the subtree pool's keys use in place
// of its content, so a key is hashed in a few bytes per field; ids are never reused, so equal
// references mean equal strings even after an entry fell out. Bounded (generational-map.ts):
// strings longer than `maxLength` are not pooled, so the pool's own memory is bounded too.
import { GenerationalMap } from './generational-map.ts';

export interface StringPoolOptions {
  /**
   * Entries per generation; the pool holds at most twice this. Small on purpose: what repeats is
   * hit again soon and stays young, and a pool of one-off values is pure overhead (standalone,
   * 1,000 pods: 1,668 bytes per pod with 1024/512 entries, 2,131 with 4096/2048).
   */
  maxEntries?: number;
  /** Longer strings are returned as they are, never pooled. */
  maxLength?: number;
}

export interface SharedString {
  value: string;
  /** Stands for the string's content in a subtree's key. */
  ref: string;
}

export class StringPool {
  private readonly pooled: GenerationalMap<SharedString>;
  private readonly maxLength: number;
  private nextId = 0;

  constructor(options: StringPoolOptions = {}) {
    this.pooled = new GenerationalMap(options.maxEntries ?? 1024);
    this.maxLength = options.maxLength ?? 256;
  }

  /** The pooled instance equal to `s` (`s` itself the first time it is seen), and its reference; undefined when too long to pool. */
  share(s: string): SharedString | undefined {
    if (s.length > this.maxLength) return undefined;
    const pooled = this.pooled.get(s);
    if (pooled !== undefined) return pooled;
    const entry = { value: s, ref: `'${this.nextId++}` };
    this.pooled.set(s, entry);
    return entry;
  }

  /** The pooled instance equal to `s`. */
  intern(s: string): string {
    return this.share(s)?.value ?? s;
  }

  /** Entries held, at most twice maxEntries. */
  get size(): number {
    return this.pooled.size;
  }

  /** Whether `s` is pooled now. */
  has(s: string): boolean {
    return this.pooled.has(s);
  }
}
