// Equality of JSON documents: a key holding undefined counts as absent, as it does on the wire.
import { isDeepStrictEqual } from 'node:util';

function toJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(toJson(a), toJson(b));
}
