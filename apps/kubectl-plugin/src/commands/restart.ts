// `rollout restart`: stamp the template as kubectl does, then follow the rollout it starts with
// `rollout status` (its lines, its exit status), so the command returns once every pod was
// re-created; `--watch=false` (or -o) returns after the stamp.
import type { OutputFormat } from '../args.ts';
import type { CloneSetApi } from '../cluster.ts';
import { edit } from './edit.ts';
import type { Io } from './io.ts';
import { rolloutStatus } from './status.ts';

export async function rolloutRestart(api: CloneSetApi, io: Io, o: { name: string; output: OutputFormat | undefined; watch: boolean; timeoutMs: number }): Promise<number> {
  const stamped = await edit(api, io, { name: o.name, output: o.output, verb: 'restart' });
  if (stamped !== 0 || !o.watch) return stamped;
  return rolloutStatus(api, io, { name: o.name, watch: true, timeoutMs: o.timeoutMs });
}
