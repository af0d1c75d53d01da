// Small helpers over untyped JSON: conversion sees objects as the apiserver sends them, so it
// reads nothing through the TypeScript types and leaves any value it does not understand as is.

export type JsonObject = Record<string, unknown>;

/**
 * A number a lossless parse kept as its text (`JSON.rawJSON`, Node 21+): an int64 beyond 2^53 in
 * a pod template must come back digit for digit. It is a value, not an object to look into.
 */
const isRawJson: (value: unknown) => boolean = (JSON as unknown as { isRawJSON?: (value: unknown) => boolean }).isRawJSON ?? (() => false);

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isRawJson(value);
}

/** A deep copy of JSON objects and arrays; every other value (raw numbers included) is shared. */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneJson(v)])) as T;
}

/** A copy of `object` without `keys`. */
export function omit(object: JsonObject, keys: readonly string[]): JsonObject {
  // fromEntries defines own properties, so even a "__proto__" key in the JSON stays a key.
  return Object.fromEntries(Object.entries(object).filter(([k]) => !keys.includes(k)));
}

/** The `keys` of `object` that it holds, in that order. */
export function pick(object: JsonObject, keys: readonly string[]): JsonObject {
  return Object.fromEntries(keys.filter((k) => Object.hasOwn(object, k)).map((k) => [k, object[k]]));
}

/**
 * Sets (value defined) or removes (undefined) `key` of the string map `owner[field]` (metadata
 * labels or annotations). A map left empty is removed: the apiserver stores no empty maps in
 * object metadata, so absent and empty are the same map.
 */
export function setMapEntry(owner: JsonObject, field: string, key: string, value: string | undefined): void {
  const map = isJsonObject(owner[field]) ? owner[field] : undefined;
  if (value === undefined) {
    if (!map || !Object.hasOwn(map, key)) return;
    delete map[key];
    if (Object.keys(map).length === 0) delete owner[field];
    return;
  }
  if (map) map[key] = value;
  else owner[field] = { [key]: value };
}

/** `owner[field][key]` when it is a string. */
export function mapEntry(owner: JsonObject | undefined, field: string, key: string): string | undefined {
  const map = owner?.[field];
  const value = isJsonObject(map) ? map[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}
