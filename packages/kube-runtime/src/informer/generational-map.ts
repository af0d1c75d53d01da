// A map that forgets what is no longer asked for, in bounded space: two generations of at most
// `maxEntries` each. A key is looked up in the young one, then in the old one (and copied to the
// young one); when the young one is full it becomes the old one and the previous old one is
// dropped. Keys that keep coming back stay; one-off keys fall out after two generations. The
// pools of the informer caches are built on it: pods churn, and a pool must not grow with them.

export class GenerationalMap<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();
  private readonly maxEntries: number;

  constructor(maxEntries: number) {
    this.maxEntries = Math.max(1, maxEntries);
  }

  get(key: string): V | undefined {
    const young = this.young.get(key);
    if (young !== undefined) return young;
    const old = this.old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    if (this.young.size >= this.maxEntries) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  has(key: string): boolean {
    return this.young.has(key) || this.old.has(key);
  }

  /** Entries held, both generations (a key copied to the young one is counted twice): at most 2 * maxEntries. */
  get size(): number {
    return this.young.size + this.old.size;
  }
}
