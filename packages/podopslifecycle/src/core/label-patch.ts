// A change to a pod's labels as typed data, reduced to what actually changes, and its JSON patch.
import type { JsonPatchOperation } from '@cloneset-suite/kube-runtime';
import type { Labels } from './protocol.ts';

export interface LabelChanges {
  /** Labels to add or overwrite. */
  set: Record<string, string>;
  /** Labels to remove. */
  remove: string[];
}

export const noLabelChanges = (): LabelChanges => ({ set: {}, remove: [] });

/** Only the changes that alter `labels` (removing an absent key or re-setting a value is dropped). */
export function effectiveChanges(labels: Labels | undefined, changes: LabelChanges): LabelChanges {
  const current = labels ?? {};
  const set = Object.fromEntries(Object.entries(changes.set).filter(([k, v]) => current[k] !== v));
  const remove = [...new Set(changes.remove)].filter((k) => k in current && !(k in set)).sort();
  return { set, remove };
}

export function isEmpty(changes: LabelChanges): boolean {
  return Object.keys(changes.set).length === 0 && changes.remove.length === 0;
}

/** Applies changes to a copy of the labels. */
export function applyChanges(labels: Labels | undefined, changes: LabelChanges): Record<string, string> {
  const out = { ...(labels ?? {}) };
  for (const k of changes.remove) delete out[k];
  Object.assign(out, changes.set);
  return out;
}

const pointer = (key: string): string => `/metadata/labels/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** JSON patch operations for `changes` on a pod whose labels are `labels`. */
export function labelPatchOps(labels: Labels | undefined, changes: LabelChanges): JsonPatchOperation[] {
  const eff = effectiveChanges(labels, changes);
  if (labels === undefined && Object.keys(eff.set).length > 0) return [{ op: 'add', path: '/metadata/labels', value: eff.set }];
  return [...eff.remove.map((k): JsonPatchOperation => ({ op: 'remove', path: pointer(k) })), ...Object.entries(eff.set).map(([k, v]): JsonPatchOperation => ({ op: 'add', path: pointer(k), value: v }))];
}
