// Load on one HTTPS endpoint from a fixed set of kept-alive connections, generated in a worker
// thread of its own (./load-worker.ts, ./load-runner.ts): the bench's event loop (its kube
// clients, timers, logging) never delays a request or its timing. Loopback only.
import { Worker } from 'node:worker_threads';
import type { LoadResult, LoadTarget } from './load-runner.ts';

export { dueAtMs } from './load-runner.ts';
export type { LoadResult, LoadTarget, LoopDelay } from './load-runner.ts';

export type LoadCommand =
  | { kind: 'warmUp'; perConnection: number }
  | { kind: 'paced'; rps: number; seconds: number }
  | { kind: 'saturated'; maxRequests: number; maxSeconds: number }
  | { kind: 'close' };

export type LoadReply = { ok: true; result?: LoadResult } | { ok: false; error: string };

/** Completed requests per second. */
export const throughput = (r: LoadResult): number => (r.elapsedMs > 0 ? (r.latenciesMs.length / r.elapsedMs) * 1000 : Number.NaN);

export class LoadClient {
  private readonly worker: Worker;
  private busy: Promise<unknown> = Promise.resolve();

  constructor(target: LoadTarget) {
    this.worker = new Worker(new URL('./load-worker.ts', import.meta.url), { workerData: target });
  }

  /** Opens every connection (TLS handshakes are not part of what is measured). */
  async warmUp(perConnection: number): Promise<void> {
    await this.call({ kind: 'warmUp', perConnection });
  }

  /** Open loop: latency counted from when each request was due. */
  async paced(rps: number, seconds: number): Promise<LoadResult> {
    return this.result(await this.call({ kind: 'paced', rps, seconds }));
  }

  async saturated(maxRequests: number, maxSeconds: number): Promise<LoadResult> {
    return this.result(await this.call({ kind: 'saturated', maxRequests, maxSeconds }));
  }

  async close(): Promise<void> {
    await this.call({ kind: 'close' }).catch(() => undefined);
    await this.worker.terminate();
  }

  private result(reply: LoadReply): LoadResult {
    if (!reply.ok || !reply.result) throw new Error('the load generator returned no result');
    return reply.result;
  }

  /** One command at a time; a worker that dies fails the call instead of hanging it. */
  private call(command: LoadCommand): Promise<LoadReply> {
    const next = this.busy.then(
      () =>
        new Promise<LoadReply>((resolve, reject) => {
          const onError = (err: Error): void => {
            this.worker.off('message', onMessage);
            reject(err);
          };
          const onMessage = (reply: LoadReply): void => {
            this.worker.off('error', onError);
            if (reply.ok) resolve(reply);
            else reject(new Error(reply.error));
          };
          this.worker.once('message', onMessage);
          this.worker.once('error', onError);
          this.worker.postMessage(command);
        }),
    );
    this.busy = next.catch(() => undefined);
    return next;
  }
}
