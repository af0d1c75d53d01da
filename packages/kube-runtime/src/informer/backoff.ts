// Exponential backoff with jitter for reconnects: many informers restarting together after an
// apiserver restart must not reconnect in lockstep (client-node #1933).

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  /** Adds up to this fraction of the delay at random. */
  jitter?: number;
  random?: () => number;
}

export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly jitter: number;
  private readonly random: () => number;
  private attempt = 0;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 800;
    this.maxMs = options.maxMs ?? 30_000;
    this.jitter = options.jitter ?? 1.0;
    this.random = options.random ?? Math.random;
  }

  /** The next delay; each call doubles the base up to the cap. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return base + base * this.jitter * this.random();
  }

  reset(): void {
    this.attempt = 0;
  }
}
