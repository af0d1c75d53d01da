// The CloneSet's rollout history from its ControllerRevisions: the REVISION / CHANGE-CAUSE
// table, one revision's template and its diff from the revision before, and which revision
// `undo` goes back to (kubectl's rules and messages for ControllerRevision-based workloads).
import type { CloneSet } from '@cloneset-suite/api-types';
import { sortRevisions, templateOfRevision, templatesEqual } from '@cloneset-suite/cloneset-controller';
import type { V1ControllerRevision, V1PodTemplateSpec } from '@kubernetes/client-node';
import { createTwoFilesPatch } from 'diff';
import { stringify } from 'yaml';

export const CHANGE_CAUSE_ANNOTATION = 'kubernetes.io/change-cause';

export interface HistoryEntry {
  revision: number;
  name: string;
  changeCause: string | undefined;
  template: V1PodTemplateSpec;
}

/** The revisions this CloneSet controls, oldest first. */
export function historyOf(cs: CloneSet, revisions: readonly V1ControllerRevision[]): HistoryEntry[] {
  const uid = cs.metadata?.uid;
  const owned = revisions.filter((r) => r.metadata?.ownerReferences?.some((o) => o.controller === true && o.uid === uid));
  return sortRevisions(owned).map((r) => ({
    revision: r.revision,
    name: r.metadata?.name ?? '',
    changeCause: r.metadata?.annotations?.[CHANGE_CAUSE_ANNOTATION],
    template: templateOfRevision(r),
  }));
}

/** `REVISION  CHANGE-CAUSE` rows as kubectl prints them. */
export function historyTable(entries: readonly HistoryEntry[]): string[][] {
  return [['REVISION', 'CHANGE-CAUSE'], ...entries.map((e) => [String(e.revision), e.changeCause ?? '<none>'])];
}

function templateYaml(t: V1PodTemplateSpec): string {
  return stringify(t, { sortMapEntries: true });
}

/** One revision: its change cause, its template, and the diff from the revision before it. */
export function revisionDetail(entries: readonly HistoryEntry[], revision: number): string {
  const at = entries.findIndex((e) => e.revision === revision);
  const entry = entries[at];
  if (!entry) throw new RangeError(`unable to find the specified revision ${revision}`);
  const previous = at > 0 ? entries[at - 1] : undefined;
  const indent = (text: string): string => text.replace(/^(?=.)/gm, '  ');
  const lines = [`Revision: ${entry.revision} (${entry.name})`, `Change-cause: ${entry.changeCause ?? '<none>'}`, 'Pod Template:', indent(templateYaml(entry.template)).trimEnd()];
  if (previous) {
    const patch = createTwoFilesPatch(`revision ${previous.revision}`, `revision ${entry.revision}`, templateYaml(previous.template), templateYaml(entry.template));
    // Drop the "=====" banner; keep the ---/+++ headers and hunks.
    lines.push(`Changes from revision ${previous.revision}:`, indent(patch.split('\n').slice(1).join('\n')).trimEnd());
  } else {
    lines.push('Changes: the first revision in the history');
  }
  return `${lines.join('\n')}\n`;
}

export type UndoDecision =
  | { kind: 'rollback'; entry: HistoryEntry }
  | { kind: 'skip'; message: string }
  | { kind: 'error'; message: string };

/**
 * Where `undo` goes: revision toRevision, or (0) the newest revision whose template differs
 * from the CloneSet's (the template, not a status that may lag it, says where we are).
 */
export function undoDecision(cs: CloneSet, entries: readonly HistoryEntry[], toRevision: number): UndoDecision {
  const name = cs.metadata?.name ?? '';
  if (entries.length === 0) return { kind: 'error', message: `no rollout history found for clone "${name}"` };
  const target =
    toRevision === 0 ? entries.filter((e) => !templatesEqual(e.template, cs.spec.template)).at(-1) : entries.find((e) => e.revision === toRevision);
  if (!target) return { kind: 'error', message: toRevision === 0 ? 'no last revision to roll back to' : `unable to find specified revision ${toRevision} in history` };
  if (templatesEqual(target.template, cs.spec.template)) {
    return { kind: 'skip', message: `skipped rollback (current template already matches revision ${target.revision})` };
  }
  return { kind: 'rollback', entry: target };
}
