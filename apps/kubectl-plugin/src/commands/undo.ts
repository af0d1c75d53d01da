// `rollout undo [--to-revision=N]`: put the template of that revision (default: the one before)
// back into the CloneSet; the controller then rolls the pods to it.
import type { OutputFormat } from '../args.ts';
import type { CloneSetApi } from '../cluster.ts';
import { undoEdit } from '../core/edits.ts';
import { historyOf, undoDecision } from '../core/history.ts';
import { UsageError } from '../core/usage-error.ts';
import { formatObject, resourceRef, type Io } from './io.ts';

export async function rolloutUndo(api: CloneSetApi, io: Io, o: { name: string; toRevision: number; output: OutputFormat | undefined }): Promise<number> {
  const cs = await api.get(o.name);
  const decision = undoDecision(cs, historyOf(cs, await api.revisions(cs)), o.toRevision);
  if (decision.kind === 'error') throw new UsageError(decision.message);
  if (decision.kind === 'skip') {
    io.out(o.output ? formatObject(cs, o.output) : `${resourceRef(o.name)} ${decision.message}\n`);
    return 0;
  }
  const updated = await api.patch(o.name, undoEdit(cs, decision.entry.template));
  io.out(o.output ? formatObject(updated, o.output) : `${resourceRef(o.name)} rolled back\n`);
  return 0;
}
