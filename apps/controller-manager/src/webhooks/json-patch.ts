// The RFC 6902 patch that turns one JSON value into another, as a mutating webhook returns it.
// Objects are diffed key by key; arrays of equal length element by element; anything else is
// replaced whole.

export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

const NEEDS_ESCAPE = /[~/]/;

export function escapePointer(token: string): string {
  // Called for every key of every pod the webhook diffs; almost none needs escaping.
  if (!NEEDS_ESCAPE.test(token)) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function sameScalar(a: unknown, b: unknown): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

function diffInto(from: unknown, to: unknown, path: string, ops: JsonPatchOperation[]): void {
  if (isObject(from) && isObject(to)) {
    for (const key of Object.keys(from)) {
      if (!Object.hasOwn(to, key) || to[key] === undefined) {
        if (from[key] !== undefined) ops.push({ op: 'remove', path: `${path}/${escapePointer(key)}` });
      }
    }
    for (const [key, value] of Object.entries(to)) {
      if (value === undefined) continue;
      const child = `${path}/${escapePointer(key)}`;
      if (!Object.hasOwn(from, key) || from[key] === undefined) ops.push({ op: 'add', path: child, value });
      else diffInto(from[key], value, child, ops);
    }
    return;
  }
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
    to.forEach((value, i) => diffInto(from[i], value, `${path}/${i}`, ops));
    return;
  }
  if (Array.isArray(from) || Array.isArray(to) || isObject(from) || isObject(to) || !sameScalar(from, to)) {
    ops.push({ op: 'replace', path, value: to });
  }
}

/** Operations that turn `from` into `to` (both JSON values; `to` must not be undefined). */
export function createJsonPatch(from: unknown, to: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diffInto(from, to, '', ops);
  return ops;
}
