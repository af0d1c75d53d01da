// A small RFC 6902 applier (add/replace/remove) for checking the patches the webhooks produce.
import type { JsonPatchOperation } from '../../src/webhooks/json-patch.ts';

const unescape = (t: string): string => t.replace(/~1/g, '/').replace(/~0/g, '~');

export function applyJsonPatch(doc: unknown, ops: readonly JsonPatchOperation[]): unknown {
  let root: unknown = structuredClone(doc);
  for (const op of ops) {
    if (op.path === '') {
      if (op.op === 'remove') throw new Error('cannot remove the root');
      root = structuredClone(op.value);
      continue;
    }
    const tokens = op.path.split('/').slice(1).map(unescape);
    const last = tokens.pop()!;
    let parent = root as Record<string, unknown>;
    for (const t of tokens) {
      const next = (parent)[t];
      if (typeof next !== 'object' || next === null) throw new Error(`no parent at ${op.path}`);
      parent = next as Record<string, unknown>;
    }
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(i, 0, structuredClone(op.value));
      else if (op.op === 'replace') parent[i] = structuredClone(op.value);
      else parent.splice(i, 1);
    } else if (op.op === 'remove') {
      if (!Object.hasOwn(parent, last)) throw new Error(`nothing to remove at ${op.path}`);
      delete parent[last];
    } else {
      if (op.op === 'replace' && !Object.hasOwn(parent, last)) throw new Error(`nothing to replace at ${op.path}`);
      Object.defineProperty(parent, last, { value: structuredClone(op.value), enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}
