// `rollout status`: print a line whenever the rollout's state changes; exit 0 when done, 1 on
// a timeout or when the CloneSet reports it can no longer progress.
import { rolloutState } from '../core/rollout-status.ts';
import type { CloneSetApi } from '../cluster.ts';
import type { Io } from './io.ts';

export async function rolloutStatus(api: CloneSetApi, io: Io, o: { name: string; watch: boolean; timeoutMs: number }): Promise<number> {
  const stop = new AbortController();
  const timer = o.timeoutMs > 0 ? setTimeout(() => stop.abort(), o.timeoutMs) : undefined;
  let last = '';
  try {
    for await (const cs of api.follow(o.name, stop.signal)) {
      const state = rolloutState(cs);
      if (state.kind === 'failed') {
        io.err(`error: ${state.message}\n`);
        return 1;
      }
      if (state.message !== last) io.out(`${state.message}\n`);
      last = state.message;
      if (state.kind === 'done' || !o.watch) return 0;
    }
  } catch (err) {
    if (!stop.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  io.err('error: timed out waiting for the condition\n');
  return 1;
}
