// `pods clone/NAME [-w]`: the pods table; with -w it is printed again whenever a row changes
// (other than the ticking SINCE column), until interrupted.
import { setTimeout as sleep } from 'node:timers/promises';
import { planReconcile, reconcileInputOf } from '@cloneset-suite/cloneset-controller';
import type { OutputFormat } from '../args.ts';
import type { CloneSetApi } from '../cluster.ts';
import type { FeatureGateSettings } from '../core/feature-gates.ts';
import { podsTable } from '../core/pods-table.ts';
import { renderTable } from '../core/table.ts';
import { formatObject, type Io } from './io.ts';

const SINCE_COLUMN = 9;
const REFRESH_MS = 1_000;

export async function pods(api: CloneSetApi, io: Io, o: { name: string; watch: boolean; gates: FeatureGateSettings; output: OutputFormat | undefined }, signal?: AbortSignal): Promise<number> {
  let shown = '';
  do {
    const cs = await api.get(o.name);
    const items = await api.pods(cs);
    if (o.output) {
      io.out(formatObject({ apiVersion: 'v1', kind: 'List', items }, o.output));
      return 0;
    }
    // The WAITING-FOR column: the controller's own planner on what its caches would hold, as `plan` runs it.
    const reads = await api.planReads(cs, { imagePullJobs: o.gates.PreDownloadImageForInPlaceUpdate });
    const { waits } = planReconcile(reconcileInputOf(reads, { gates: o.gates, nowMs: io.now().getTime(), random: Math.random }));
    const table = podsTable(items, cs, io.now(), waits.map((w) => ({ kind: w.kind, ...('pods' in w ? { pods: w.pods } : {}) })));
    const identity = JSON.stringify(table.map((row) => row.filter((_, i) => i !== SINCE_COLUMN)));
    if (identity !== shown) {
      io.out(items.length === 0 ? `No pods found for clone "${o.name}" in ${api.namespace} namespace.\n` : `${renderTable(table)}\n`);
      shown = identity;
    }
    if (o.watch) await sleep(REFRESH_MS, undefined, signal ? { signal } : {}).catch(() => undefined);
  } while (o.watch && !signal?.aborted);
  return 0;
}
