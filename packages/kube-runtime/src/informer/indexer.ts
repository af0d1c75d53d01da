// A keyed store with secondary indexes (client-go's ThreadSafeStore + Indexers). Objects are stored
// once and frozen; index values point at keys, never at copies.
import { objectKey } from '../keys.ts';
import { matchesLabels, type Requirement } from '../selectors.ts';
import type { KubeObject } from '../client/types.ts';
import type { DeepReadonly } from '../util/deep-readonly.ts';

/** Values under which an object is indexed (e.g. its node name); [] leaves it out. */
export type IndexFunc<T> = (obj: DeepReadonly<T>) => readonly string[];

export const NamespaceIndex = 'namespace';
export const OwnerUIDIndex = 'ownerUID';

/** Name of an index on one label key: indexes named so are used by label-selector lookups. */
export function labelIndexName(labelKey: string): string {
  return `label:${labelKey}`;
}

export function labelIndexFunc<T extends KubeObject>(labelKey: string): IndexFunc<T> {
  return (obj) => {
    const v = obj.metadata?.labels?.[labelKey];
    return v === undefined ? [] : [v];
  };
}

export const namespaceIndexFunc: IndexFunc<KubeObject> = (obj) =>
  obj.metadata?.namespace ? [obj.metadata.namespace] : [];

export const ownerUIDIndexFunc: IndexFunc<KubeObject> = (obj) =>
  (obj.metadata?.ownerReferences ?? []).map((o) => o.uid);

export interface ListQuery {
  namespace?: string;
  labelSelector?: readonly Requirement[];
}

/**
 * Picks the narrowest index for a query: the namespace index, or an equality/`in` label
 * requirement with a label index. Returns the index name and the values to union, or undefined
 * for a full scan. Pure, so the choice is testable without a store.
 */
export function planIndexLookup(
  query: ListQuery,
  indexNames: ReadonlySet<string>,
  sizeOf: (index: string, values: readonly string[]) => number,
): { index: string; values: string[] } | undefined {
  const candidates: { index: string; values: string[] }[] = [];
  if (query.namespace && indexNames.has(NamespaceIndex)) candidates.push({ index: NamespaceIndex, values: [query.namespace] });
  for (const r of query.labelSelector ?? []) {
    const index = labelIndexName(r.key);
    if (!indexNames.has(index)) continue;
    if (r.operator === '=' || r.operator === 'in') candidates.push({ index, values: [...r.values] });
  }
  let best: { index: string; values: string[] } | undefined;
  let bestSize = Infinity;
  for (const c of candidates) {
    const size = sizeOf(c.index, c.values);
    if (size < bestSize) {
      best = c;
      bestSize = size;
    }
  }
  return best;
}

export class Indexer<T extends KubeObject> {
  private readonly items = new Map<string, DeepReadonly<T>>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Record<string, IndexFunc<T>> = {}) {
    this.addIndexers({
      [NamespaceIndex]: namespaceIndexFunc,
      [OwnerUIDIndex]: ownerUIDIndexFunc,
      ...indexers,
    });
  }

  /** Adds indexes; existing items are indexed right away. Re-adding a name is an error. */
  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indexers.has(name)) throw new Error(`indexer ${name} already exists`);
      this.indexers.set(name, fn);
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      for (const [key, obj] of this.items) addToIndex(index, fn(obj), key);
    }
  }

  indexNames(): ReadonlySet<string> {
    return new Set(this.indexers.keys());
  }

  /** Stores (or replaces) the object under its key; returns the previous one. */
  set(obj: DeepReadonly<T>): DeepReadonly<T> | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name);
      if (!index) continue;
      if (old) removeFromIndex(index, fn(old), key);
      addToIndex(index, fn(obj), key);
    }
    return old;
  }

  delete(key: string): DeepReadonly<T> | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.items.delete(key);
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name);
      if (index) removeFromIndex(index, fn(old), key);
    }
    return old;
  }

  getByKey(key: string): DeepReadonly<T> | undefined {
    return this.items.get(key);
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  size(): number {
    return this.items.size;
  }

  values(): IterableIterator<DeepReadonly<T>> {
    return this.items.values();
  }

  /** Objects whose index function returned `value` for the named index. */
  byIndex(indexName: string, value: string): DeepReadonly<T>[] {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`no index named ${indexName}`);
    return this.resolve(index.get(value));
  }

  /** Lists with an optional namespace and label selector, through the narrowest index. */
  list(query: ListQuery = {}): DeepReadonly<T>[] {
    const plan = planIndexLookup(query, this.indexNames(), (name, values) => {
      const index = this.indices.get(name);
      return values.reduce((n, v) => n + (index?.get(v)?.size ?? 0), 0);
    });
    let candidates: Iterable<DeepReadonly<T>>;
    if (plan) {
      const index = this.indices.get(plan.index);
      const keys = new Set<string>();
      for (const v of plan.values) for (const k of index?.get(v) ?? []) keys.add(k);
      candidates = this.resolve(keys);
    } else {
      candidates = this.items.values();
    }
    const out: DeepReadonly<T>[] = [];
    for (const obj of candidates) {
      if (query.namespace && obj.metadata?.namespace !== query.namespace) continue;
      if (query.labelSelector && !matchesLabels(query.labelSelector, obj.metadata?.labels)) continue;
      out.push(obj);
    }
    return out;
  }

  private resolve(keys: Iterable<string> | undefined): DeepReadonly<T>[] {
    const out: DeepReadonly<T>[] = [];
    for (const k of keys ?? []) {
      const obj = this.items.get(k);
      if (obj) out.push(obj);
    }
    return out;
  }
}

function addToIndex(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const v of values) {
    let set = index.get(v);
    if (!set) {
      set = new Set();
      index.set(v, set);
    }
    set.add(key);
  }
}

function removeFromIndex(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const v of values) {
    const set = index.get(v);
    if (!set) continue;
    set.delete(key);
    if (set.size === 0) index.delete(v);
  }
}
