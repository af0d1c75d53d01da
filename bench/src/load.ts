// Load on one HTTPS endpoint from a fixed set of keep-alive connections: paced (open loop, a
// request every 1/rps s whether or not earlier ones answered, latency counted from when the
// request was due, so a stall shows as latency instead of hiding as a lower rate) and saturated
// (every connection sends back to back). Both bounded in count and time; loopback only.
import { Agent, request } from 'node:https';
import { now, sleep } from './kube.ts';

export interface LoadResult {
  latenciesMs: number[];
  errors: number;
  /** First error seen, to say why. */
  firstError: string | undefined;
  elapsedMs: number;
}

/** The request due at index i of a paced run, in ms from its start. */
export const dueAtMs = (i: number, rps: number): number => (i * 1000) / rps;

/** Completed requests per second. */
export const throughput = (r: LoadResult): number => (r.elapsedMs > 0 ? (r.latenciesMs.length / r.elapsedMs) * 1000 : Number.NaN);

export type Check = (status: number, body: string) => string | undefined;

export class LoadClient {
  private readonly agent: Agent;
  private readonly url: URL;
  private readonly bodies: readonly string[];
  private readonly check: Check;
  readonly connections: number;

  constructor(options: { url: string; ca: string; connections: number; bodies: readonly string[]; check: Check }) {
    this.agent = new Agent({ keepAlive: true, maxSockets: options.connections, ca: options.ca });
    this.url = new URL(options.url);
    this.bodies = options.bodies;
    this.check = options.check;
    this.connections = options.connections;
  }

  /** Opens every connection (TLS handshakes are not part of what is measured). */
  async warmUp(perConnection: number): Promise<void> {
    await Promise.all(Array.from({ length: this.connections }, async (_, c) => {
      for (let i = 0; i < perConnection; i++) {
        const error = await this.send(c + i);
        if (error) throw new Error(`warm-up request to ${this.url.pathname} failed: ${error}`);
      }
    }));
  }

  async paced(rps: number, seconds: number): Promise<LoadResult> {
    const total = Math.round(rps * seconds);
    const result: LoadResult = { latenciesMs: [], errors: 0, firstError: undefined, elapsedMs: 0 };
    const inFlight: Promise<void>[] = [];
    const t0 = now();
    let sent = 0;
    while (sent < total) {
      const elapsed = now() - t0;
      while (sent < total && dueAtMs(sent, rps) <= elapsed) {
        const due = t0 + dueAtMs(sent, rps);
        inFlight.push(this.timed(sent++, due, result));
      }
      await sleep(1);
    }
    await Promise.all(inFlight);
    result.elapsedMs = now() - t0;
    return result;
  }

  async saturated(maxRequests: number, maxSeconds: number): Promise<LoadResult> {
    const result: LoadResult = { latenciesMs: [], errors: 0, firstError: undefined, elapsedMs: 0 };
    const t0 = now();
    const deadline = t0 + maxSeconds * 1000;
    let next = 0;
    await Promise.all(Array.from({ length: this.connections }, async () => {
      while (next < maxRequests && now() < deadline) await this.timed(next++, now(), result);
    }));
    result.elapsedMs = now() - t0;
    return result;
  }

  close(): void {
    this.agent.destroy();
  }

  private async timed(i: number, from: number, into: LoadResult): Promise<void> {
    const error = await this.send(i);
    if (error) {
      into.errors++;
      into.firstError ??= error;
    } else into.latenciesMs.push(now() - from);
  }

  /** undefined when the answer passed the check, else why not. */
  private send(i: number): Promise<string | undefined> {
    const body = this.bodies[i % this.bodies.length]!;
    return new Promise((resolve) => {
      const req = request(
        this.url,
        { method: 'POST', agent: this.agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(this.check(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
          res.on('error', (err) => resolve(err.message));
        },
      );
      req.on('error', (err) => resolve(err.message));
      req.end(body);
    });
  }
}
