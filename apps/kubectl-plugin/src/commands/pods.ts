// `pods clone/NAME [-w]`: the pods table; with -w it is printed again whenever a row changes
// (other than the ticking SINCE column), until interrupted.
import { setTimeout as sleep } from 'node:timers/promises';
import type { OutputFormat } from '../args.ts';
import type { CloneSetApi } from '../cluster.ts';
import { podsTable } from '../core/pods-table.ts';
import { renderTable } from '../core/table.ts';
import { formatObject, type Io } from './io.ts';

const SINCE_COLUMN = 8;
const REFRESH_MS = 1_000;

export async function pods(api: CloneSetApi, io: Io, o: { name: string; watch: boolean; output: OutputFormat | undefined }, signal?: AbortSignal): Promise<number> {
  let shown = '';
  do {
    const cs = await api.get(o.name);
    const items = await api.pods(cs);
    if (o.output) {
      io.out(formatObject({ apiVersion: 'v1', kind: 'List', items }, o.output));
      return 0;
    }
    const table = podsTable(items, cs, io.now());
    const identity = JSON.stringify(table.map((row) => row.filter((_, i) => i !== SINCE_COLUMN)));
    if (identity !== shown) {
      io.out(items.length === 0 ? `No pods found for clone "${o.name}" in ${api.namespace} namespace.\n` : `${renderTable(table)}\n`);
      shown = identity;
    }
    if (o.watch) await sleep(REFRESH_MS, undefined, signal ? { signal } : {}).catch(() => undefined);
  } while (o.watch && !signal?.aborted);
  return 0;
}
