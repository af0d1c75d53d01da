// The one way requests leave the process: a shared client-side rate limit (QPS/burst, as client-go's
// rest.Config), rest_client_* metrics, JSON in/out and typed errors.
import type { RuntimeMetrics } from '../metrics.ts';
import { realClock, type Clock } from '../util/clock.ts';
import { TokenBucket } from '../util/token-bucket.ts';
import { ApiError, errorFromResponse } from './errors.ts';
import type { HttpRequest, HttpResponse, Transport } from './transport.ts';

export interface RestClientOptions {
  transport: Transport;
  /** controller-runtime's defaults: 20 QPS, burst 30. qps <= 0 disables the limit. */
  qps?: number;
  burst?: number;
  /**
   * Longest wait for an answer (default 60 s, the apiserver's own request timeout); for a watch,
   * for its response headers only (the informer's watchdog guards the stream).
   */
  requestTimeoutMs?: number;
  clock?: Clock;
  metrics?: RuntimeMetrics;
}

export class RestClient {
  readonly transport: Transport;
  private readonly limiter: TokenBucket;
  private readonly metrics: RuntimeMetrics | undefined;
  private readonly clock: Clock;
  private readonly requestTimeoutMs: number;

  constructor(options: RestClientOptions) {
    this.transport = options.transport;
    this.clock = options.clock ?? realClock;
    this.limiter = new TokenBucket(options.qps ?? 20, options.burst ?? 30, this.clock);
    this.metrics = options.metrics;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  }

  /** Sends a request and parses the JSON answer; non-2xx answers throw a typed ApiError. */
  async request<T>(req: HttpRequest): Promise<T> {
    await this.rateLimit(req);
    const deadline = new Deadline(this.requestTimeoutMs, req.signal);
    try {
      const res = await this.send({ ...req, signal: deadline.signal }, deadline);
      const text = await res.text().catch((err: unknown) => {
        throw transportError(err, req, deadline);
      });
      if (res.status < 200 || res.status > 299) {
        throw errorFromResponse(res.status, text, res.header('Retry-After'), describe(req));
      }
      return (text ? JSON.parse(text) : {}) as T;
    } finally {
      deadline.clear();
    }
  }

  /** Sends a request whose body is read as a stream (watch). Non-2xx answers throw. */
  async stream(req: HttpRequest): Promise<HttpResponse> {
    await this.rateLimit(req);
    const deadline = new Deadline(this.requestTimeoutMs, req.signal);
    try {
      const res = await this.send({ ...req, signal: deadline.signal, longRunning: true }, deadline);
      if (res.status < 200 || res.status > 299) {
        throw errorFromResponse(res.status, await res.text(), res.header('Retry-After'), describe(req));
      }
      return res;
    } finally {
      // The headers are in: from here only the caller's signal ends the stream.
      deadline.clear();
    }
  }

  private async rateLimit(req: HttpRequest): Promise<void> {
    const waited = await this.limiter.wait(req.signal);
    this.metrics?.restClientRateLimiterDuration.observe({ verb: req.method, host: this.transport.host }, waited / 1000);
  }

  private async send(req: HttpRequest, deadline: Deadline): Promise<HttpResponse> {
    const host = this.transport.host;
    const start = this.clock.now();
    let code = '<error>';
    try {
      const res = await this.transport.send(req);
      code = String(res.status);
      return res;
    } catch (err) {
      throw transportError(err, req, deadline);
    } finally {
      this.metrics?.restClientRequests.inc({ code, method: req.method, host });
      this.metrics?.restClientLatency.observe({ verb: req.method, host }, (this.clock.now() - start) / 1000);
    }
  }
}

/** A per-request timer that aborts the request unless cleared first, linked to the caller's signal. */
class Deadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  readonly timeoutMs: number;

  constructor(timeoutMs: number, callerSignal: AbortSignal | undefined) {
    this.timeoutMs = timeoutMs;
    this.timer = setTimeout(() => this.controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.controller.signal]) : this.controller.signal;
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

function transportError(err: unknown, req: HttpRequest, deadline: Deadline): ApiError {
  if (err instanceof ApiError) return err;
  if (deadline.expired) return new ApiError(0, 'Timeout', `no answer within ${deadline.timeoutMs} ms (${describe(req)})`, undefined, describe(req));
  return new ApiError(0, 'TransportError', `${errorMessage(err)} (${describe(req)})`, undefined, describe(req), { cause: err });
}

function describe(req: HttpRequest): string {
  return `${req.method} ${req.path}`;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `${err.message}${cause}`;
  }
  return String(err);
}
