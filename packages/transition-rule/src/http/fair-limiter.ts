// Runs webhook calls under the fair share of nextKey: a queue per namespace, served round-robin.
// A call whose signal aborts while it waits leaves the queue and rejects with the signal's reason.
// It keeps state only for namespaces with a call running or waiting: an idle namespace is
// forgotten (its place in the round-robin order too), so namespaces that come and go leave
// nothing behind.
import { nextKey, type ShareLimits } from '../core/fair-share.ts';

interface Waiting {
  start: () => void;
  abandon: () => void;
}

export class FairLimiter {
  private readonly limits: ShareLimits;
  private readonly queues = new Map<string, Waiting[]>();
  private readonly running = new Map<string, number>();
  /** When each key last had a call started (a sequence number), for the round-robin order. */
  private readonly served = new Map<string, number>();
  private sequence = 0;

  constructor(limits: ShareLimits) {
    this.limits = { total: Math.max(1, limits.total), perKey: Math.max(1, Math.min(limits.perKey, limits.total)) };
  }

  /** Namespaces the limiter holds any state for (running, waiting, or round-robin order). */
  get trackedKeys(): number {
    return new Set([...this.running.keys(), ...this.queues.keys(), ...this.served.keys()]).size;
  }

  /** Calls running or waiting for a slot. */
  get pending(): number {
    let n = 0;
    for (const r of this.running.values()) n += r;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const entry: Waiting = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.running.set(key, (this.running.get(key) ?? 0) + 1);
          task()
            .then(resolve, reject)
            .finally(() => {
              const left = (this.running.get(key) ?? 1) - 1;
              if (left === 0) this.running.delete(key);
              else this.running.set(key, left);
              this.forgetIfIdle(key);
              this.schedule();
            });
        },
        abandon: () => reject(signal?.reason as Error),
      };
      const onAbort = (): void => {
        const queue = this.queues.get(key);
        const at = queue?.indexOf(entry) ?? -1;
        if (at < 0) return;
        queue!.splice(at, 1);
        if (queue!.length === 0) this.queues.delete(key);
        this.forgetIfIdle(key);
        entry.abandon();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      let queue = this.queues.get(key);
      if (!queue) this.queues.set(key, (queue = []));
      queue.push(entry);
      this.schedule();
    });
  }

  private forgetIfIdle(key: string): void {
    if (!this.running.has(key) && !this.queues.has(key)) this.served.delete(key);
  }

  private schedule(): void {
    for (;;) {
      // Keys with waiting calls, least recently served first (never served: in arrival order).
      const order = [...this.queues.keys()].sort((a, b) => (this.served.get(a) ?? -1) - (this.served.get(b) ?? -1));
      const key = nextKey(order, this.running, this.limits);
      if (key === undefined) return;
      const queue = this.queues.get(key)!;
      const entry = queue.shift()!;
      if (queue.length === 0) this.queues.delete(key);
      this.served.set(key, ++this.sequence);
      entry.start();
    }
  }
}
