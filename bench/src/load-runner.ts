// The load itself, run inside the generator's worker (./load-worker.ts) so nothing else shares
// its event loop: paced (open loop: request i is due at i/rps s whether or not earlier ones were
// answered, and its latency counts from when it was due, so a stall of the server, or of this
// generator, shows as latency instead of hiding as a lower rate) and saturated (every connection
// sends its next request as soon as the previous one is answered). Both bounded in count and time.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { postRequestBytes } from './http-response.ts';
import { checkResponse, type ExpectedResponse } from './load-check.ts';
import { LoadConnection } from './load-connection.ts';

export interface LoadTarget {
  url: string;
  ca: string;
  connections: number;
  /** Request bodies, sent in turn. */
  bodies: readonly string[];
  expected: ExpectedResponse;
}

/** The generator's own event-loop delay over a run (ms): its stalls are part of the latencies. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

export interface LoadResult {
  latenciesMs: number[];
  errors: number;
  /** First error seen, to say why. */
  firstError: string | undefined;
  elapsedMs: number;
  generatorDelayMs: LoopDelay;
}

/** The request due at index i of a paced run, in ms from its start. */
export const dueAtMs = (i: number, rps: number): number => (i * 1000) / rps;

const now = (): number => performance.now();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class LoadRunner {
  private readonly url: URL;
  private readonly requests: Buffer[];
  private readonly idle: LoadConnection[] = [];
  private readonly queue: ((c: LoadConnection) => void)[] = [];
  private readonly all = new Set<LoadConnection>();
  private readonly target: LoadTarget;

  constructor(target: LoadTarget) {
    this.target = target;
    this.url = new URL(target.url);
    this.requests = target.bodies.map((b) => postRequestBytes(this.url, b));
  }

  /** Opens every connection and sends requests on each (TLS handshakes are not part of what is measured). */
  async warmUp(perConnection: number): Promise<void> {
    const opened = await Promise.all(Array.from({ length: this.target.connections }, () => this.open()));
    await Promise.all(opened.map(async (c, k) => {
      for (let i = 0; i < perConnection; i++) {
        const error = await this.exchange(c, k + i);
        if (error) throw new Error(`warm-up request to ${this.url.pathname} failed: ${error}`);
      }
    }));
    this.idle.push(...opened);
  }

  async paced(rps: number, seconds: number): Promise<LoadResult> {
    const total = Math.round(rps * seconds);
    return this.measure(async (result) => {
      const inFlight: Promise<void>[] = [];
      const t0 = now();
      let sent = 0;
      while (sent < total) {
        const elapsed = now() - t0;
        while (sent < total && dueAtMs(sent, rps) <= elapsed) {
          const due = t0 + dueAtMs(sent, rps);
          inFlight.push(this.pooled(sent++, due, result));
        }
        if (sent < total) await sleep(Math.max(0, dueAtMs(sent, rps) - (now() - t0)));
      }
      await Promise.all(inFlight);
    });
  }

  async saturated(maxRequests: number, maxSeconds: number): Promise<LoadResult> {
    return this.measure(async (result) => {
      const deadline = now() + maxSeconds * 1000;
      let next = 0;
      await Promise.all(Array.from({ length: this.target.connections }, async () => {
        while (next < maxRequests && now() < deadline) await this.pooled(next++, now(), result);
      }));
    });
  }

  close(): void {
    for (const c of this.all) c.close();
    this.all.clear();
    this.idle.length = 0;
  }

  private async measure(run: (into: LoadResult) => Promise<void>): Promise<LoadResult> {
    const result: LoadResult = { latenciesMs: [], errors: 0, firstError: undefined, elapsedMs: 0, generatorDelayMs: { p50: 0, p99: 0, max: 0 } };
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const t0 = now();
    await run(result);
    result.elapsedMs = now() - t0;
    delay.disable();
    result.generatorDelayMs = { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 };
    return result;
  }

  /** Request i on the first free connection (waiting for one, in order, if all are busy). */
  private async pooled(i: number, from: number, into: LoadResult): Promise<void> {
    const c = this.idle.pop() ?? (await new Promise<LoadConnection>((r) => this.queue.push(r)));
    const error = await this.exchange(c, i);
    if (error) {
      into.errors++;
      into.firstError ??= error;
    } else into.latenciesMs.push(now() - from);
    await this.release(c);
  }

  private async exchange(c: LoadConnection, i: number): Promise<string | undefined> {
    try {
      const res = await c.send(this.requests[i % this.requests.length]!);
      return checkResponse(this.target.expected, res.status, res.body.toString('utf8'));
    } catch (err) {
      return (err as Error).message;
    }
  }

  /** Back to the pool; a broken connection is replaced by a new one, as an HTTP agent would. */
  private async release(c: LoadConnection): Promise<void> {
    let next = c;
    if (!c.usable()) {
      c.close();
      this.all.delete(c);
      next = await this.open();
    }
    const waiter = this.queue.shift();
    if (waiter) waiter(next);
    else this.idle.push(next);
  }

  private async open(): Promise<LoadConnection> {
    const c = await LoadConnection.open(this.url, this.target.ca);
    this.all.add(c);
    return c;
  }
}
