// Patch bodies and their content types. The apiserver retries a patch internally against the
// current object, so a patch only fails on a race when it says so: a JSON patch `test` on
// resourceVersion (or metadata.resourceVersion inside a merge patch) turns a lost race into 409.
import type { JsonPatchOperation } from './types.ts';

export type Patch =
  | { readonly type: 'merge'; readonly body: unknown }
  | { readonly type: 'json'; readonly body: readonly JsonPatchOperation[] }
  | { readonly type: 'strategic'; readonly body: unknown }
  | { readonly type: 'apply'; readonly body: unknown; readonly force?: boolean };

export const PatchContentTypes = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const satisfies Record<Patch['type'], string>;

/** RFC 7396 merge patch; null deletes a field. */
export function mergePatch(body: unknown): Patch {
  return { type: 'merge', body };
}

/** Strategic merge patch: built-in types only (custom resources answer 415). */
export function strategicMergePatch(body: unknown): Patch {
  return { type: 'strategic', body };
}

/**
 * RFC 6902 JSON patch. With `resourceVersion`, a `test` op comes first, so the patch applies only
 * to that exact version and a concurrent write surfaces as a Conflict instead of being merged.
 */
export function jsonPatch(ops: readonly JsonPatchOperation[], options: { resourceVersion?: string } = {}): Patch {
  const body: JsonPatchOperation[] = options.resourceVersion
    ? [{ op: 'test', path: '/metadata/resourceVersion', value: options.resourceVersion }, ...ops]
    : [...ops];
  return { type: 'json', body };
}

/** Server-side apply; requires a fieldManager on the call. */
export function applyPatch(body: unknown, options: { force?: boolean } = {}): Patch {
  return { type: 'apply', body, force: options.force };
}

/** Escapes a key for a JSON pointer (e.g. a label key with '/'). */
export function jsonPointerEscape(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
