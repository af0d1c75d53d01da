// `rollout history [--revision=N]`: the revisions with their change cause, or one revision's
// template and its diff from the revision before.
import type { OutputFormat } from '../args.ts';
import type { CloneSetApi } from '../cluster.ts';
import { historyOf, historyTable, revisionDetail } from '../core/history.ts';
import { renderTable } from '../core/table.ts';
import { UsageError } from '../core/usage-error.ts';
import { formatObject, resourceRef, type Io } from './io.ts';

export async function rolloutHistory(api: CloneSetApi, io: Io, o: { name: string; revision: number; output: OutputFormat | undefined }): Promise<number> {
  const cs = await api.get(o.name);
  const revisions = await api.revisions(cs);
  const entries = historyOf(cs, revisions);
  if (o.revision === 0) {
    const owned = new Set(entries.map((e) => e.name));
    const items = revisions.filter((r) => owned.has(r.metadata?.name ?? ''));
    io.out(o.output ? formatObject({ apiVersion: 'v1', kind: 'List', items }, o.output) : `${resourceRef(o.name)}\n${renderTable(historyTable(entries))}\n`);
    return 0;
  }
  const entry = entries.find((e) => e.revision === o.revision);
  if (!entry) throw new UsageError(`unable to find the specified revision`);
  if (o.output) {
    io.out(formatObject(revisions.find((r) => r.metadata?.name === entry.name), o.output));
    return 0;
  }
  io.out(`${resourceRef(o.name)} with revision #${o.revision}\n${revisionDetail(entries, o.revision)}`);
  return 0;
}
