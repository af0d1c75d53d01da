// Before an object is cached, routes its strings through a string pool and its subtrees through
// a subtree pool, so what repeats across cached objects is held once. In place: the informer owns
// what the decoder hands it, and rebuilding the objects would give up the compact layout
// JSON.parse gives them. The caller freezes the result (pooled subtrees are shared). Property
// names are not touched: V8 already shares them.
//
// No object ever appears twice in one result: a copy (structuredClone, as the README says to
// edit a cached object) keeps the aliasing of its source, and editing one place of it would
// change the other (a CloneSet's selector and its template's labels are often equal). Hence two
// passes: the first (bottom-up) finds each subtree's pooled twin by content, the second (top-down)
// puts a twin in place only where none of its objects is already in the result.
import type { SharedString } from './string-pool.ts';
import type { SubtreePool } from './subtree-pool.ts';

export interface CachePools {
  /** The shared instance of a string and its reference (StringPool); undefined: not pooled. */
  strings: { share(s: string): SharedString | undefined };
  subtrees: SubtreePool;
}

/**
 * Values unique to one object: pooling them would only churn the pools. Not pooled, and neither
 * is any subtree around them.
 */
const UNIQUE_VALUE_KEYS: ReadonlySet<string> = new Set(['containerID', 'podIP', 'podIPs']);
/** The object's own identity in `metadata` (an owner's uid, which repeats, is pooled). */
const OWN_IDENTITY_KEYS: ReadonlySet<string> = new Set(['name', 'uid', 'resourceVersion']);

type Container = Record<string, unknown> | unknown[];

/** Per object of the input: the pooled subtree of equal content (possibly itself). */
type Twins = Map<Container, Container>;

/** Shares the object's strings and subtrees through the pools; the object itself is never pooled. */
export function shareEqualValues<T>(obj: T, pools: CachePools): T {
  if (!isContainer(obj) || Object.isFrozen(obj) || Array.isArray(obj)) return obj;
  const root = obj as Record<string, unknown>;
  const twins: Twins = new Map();
  for (const key of Object.keys(root)) {
    const value = root[key];
    if (key === 'metadata' && isContainer(value) && !Object.isFrozen(value) && !Array.isArray(value)) {
      for (const k of Object.keys(value)) if (!OWN_IDENTITY_KEYS.has(k)) value[k] = findTwins(value[k], pools, twins);
    } else {
      root[key] = findTwins(value, pools, twins);
    }
  }
  placeTwins(root, twins, new Set([root]));
  return obj;
}

/**
 * Pass 1, bottom-up: strings are replaced by their pooled instance at once (a string has no
 * identity to alias); each container's twin is recorded. Returns the value to keep in place.
 */
function findTwins(value: unknown, pools: CachePools, twins: Twins): unknown {
  if (typeof value === 'string') return pools.strings.share(value)?.value ?? value;
  if (isContainer(value) && !Object.isFrozen(value)) refOf(value, pools, twins);
  return value;
}

/**
 * What stands for a value's content in its parent's key (a string's is its pooled reference, the
 * caller having pooled it); undefined: the value is not poolable, nor then its parent.
 */
function refOf(value: unknown, pools: CachePools, twins: Twins): string | undefined {
  switch (typeof value) {
    case 'number':
      return Object.is(value, -0) ? 'n-0' : `n${value}`;
    case 'boolean':
      return value ? 't' : 'f';
    case 'object': {
      if (value === null) return 'z';
      if (Object.isFrozen(value)) return undefined;
      const key = Array.isArray(value) ? arrayKey(value, pools, twins) : objectKey(value as Record<string, unknown>, pools, twins);
      const shared = key === undefined ? undefined : pools.subtrees.share(key, value as Container);
      if (shared !== undefined) twins.set(value as Container, shared.value);
      return shared?.ref;
    }
    default:
      return undefined;
  }
}

/** The reference of a container's slot; a string in it is replaced by its pooled instance on the way. */
function slotRef(container: Container, k: string | number, pools: CachePools, twins: Twins): string | undefined {
  const slots = container as Record<string | number, unknown>;
  const value = slots[k];
  if (typeof value !== 'string') return refOf(value, pools, twins);
  const shared = pools.strings.share(value);
  if (shared === undefined) return undefined;
  slots[k] = shared.value;
  return shared.ref;
}

// Keys are joined from parts, not concatenated: a joined key is one flat string, cheaper to hash
// and to hold in the pool than a chain of concatenations (measured: ~11% less heap per pod).
function arrayKey(array: unknown[], pools: CachePools, twins: Twins): string | undefined {
  const parts: string[] = ['['];
  let ok = true;
  for (let i = 0; i < array.length; i++) {
    const ref = slotRef(array, i, pools, twins);
    if (ref === undefined) ok = false;
    else if (ok) parts.push(ref, ',');
  }
  if (!ok) return undefined;
  parts.push(']');
  return parts.join('');
}

function objectKey(object: Record<string, unknown>, pools: CachePools, twins: Twins): string | undefined {
  const parts: string[] = ['{'];
  let ok = true;
  for (const k of Object.keys(object)) {
    if (UNIQUE_VALUE_KEYS.has(k)) {
      ok = false;
      continue;
    }
    const ref = slotRef(object, k, pools, twins);
    if (ref === undefined) ok = false;
    // Key names are length-prefixed, so a key reads back one way only.
    else if (ok) parts.push(String(k.length), ':', k, '=', ref, ';');
  }
  if (!ok) return undefined;
  parts.push('}');
  return parts.join('');
}

/**
 * Pass 2, top-down, over the containers of the input (never into a twin put in place): a child
 * whose twin is another object is replaced by it when none of the twin's objects is in the result
 * yet; otherwise the child stays and its own children are considered. `inResult` holds every
 * object of the result so far.
 */
function placeTwins(container: Container, twins: Twins, inResult: Set<object>): void {
  const keys = Array.isArray(container) ? container.keys() : Object.keys(container);
  for (const k of keys) {
    const child = (container as Record<string | number, unknown>)[k];
    if (!isContainer(child)) continue;
    if (Object.isFrozen(child)) {
      addAll(child, inResult);
      continue;
    }
    const twin = twins.get(child);
    if (twin !== undefined && twin !== child && !containsAny(twin, inResult)) {
      (container as Record<string | number, unknown>)[k] = twin;
      addAll(twin, inResult);
      continue;
    }
    inResult.add(child);
    placeTwins(child, twins, inResult);
  }
}

function containsAny(value: unknown, set: ReadonlySet<object>): boolean {
  if (!isContainer(value)) return false;
  if (set.has(value)) return true;
  for (const v of Array.isArray(value) ? value : Object.values(value)) if (containsAny(v, set)) return true;
  return false;
}

function addAll(value: unknown, set: Set<object>): void {
  if (!isContainer(value)) return;
  set.add(value);
  for (const v of Array.isArray(value) ? value : Object.values(value)) addAll(v, set);
}

function isContainer(value: unknown): value is Container {
  return value !== null && typeof value === 'object';
}
