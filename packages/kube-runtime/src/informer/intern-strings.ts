// Routes the string values of a freshly decoded object through a pool before it is cached, so
// values that repeat across objects (image, owner, labels, node, condition reasons, quantities)
// are held once. In place: the informer owns what the decoder hands it, and rebuilding the
// objects would give up the compact layout JSON.parse gives them. Frozen parts are left alone
// (they are already some cache's). Keys are not touched: V8 already shares property names.
import type { StringPool } from './string-pool.ts';

/** Values unique to one object: pooling them would only churn the pool. Their subtrees are skipped. */
const UNIQUE_VALUE_KEYS: ReadonlySet<string> = new Set(['containerID', 'podIP', 'podIPs']);
/** The object's own identity in `metadata`, unique per object (an owner's uid, which repeats, is pooled). */
const OWN_IDENTITY_KEYS: ReadonlySet<string> = new Set(['name', 'uid', 'resourceVersion']);

type Json = unknown;

export function internStrings<T>(obj: T, pool: StringPool): T {
  if (!isWritableContainer(obj)) return obj;
  const root = obj as Record<string, Json>;
  for (const key of Object.keys(root)) {
    const value = root[key];
    if (key === 'metadata' && isWritableContainer(value) && !Array.isArray(value)) internMetadata(value as Record<string, Json>, pool);
    else root[key] = internValue(value, pool);
  }
  return obj;
}

function internMetadata(metadata: Record<string, Json>, pool: StringPool): void {
  for (const key of Object.keys(metadata)) {
    if (OWN_IDENTITY_KEYS.has(key)) continue;
    metadata[key] = internValue(metadata[key], pool);
  }
}

function internValue(value: Json, pool: StringPool): Json {
  if (typeof value === 'string') return pool.intern(value);
  if (!isWritableContainer(value)) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = internValue(value[i], pool);
    return value;
  }
  const o = value as Record<string, Json>;
  for (const key of Object.keys(o)) {
    if (UNIQUE_VALUE_KEYS.has(key)) continue;
    o[key] = internValue(o[key], pool);
  }
  return value;
}

function isWritableContainer(value: Json): value is object {
  return value !== null && typeof value === 'object' && !Object.isFrozen(value);
}
