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
  clock?: Clock;
  metrics?: RuntimeMetrics;
}

export class RestClient {
  readonly transport: Transport;
  private readonly limiter: TokenBucket;
  private readonly metrics: RuntimeMetrics | undefined;
  private readonly clock: Clock;

  constructor(options: RestClientOptions) {
    this.transport = options.transport;
    this.clock = options.clock ?? realClock;
    this.limiter = new TokenBucket(options.qps ?? 20, options.burst ?? 30, this.clock);
    this.metrics = options.metrics;
  }

  /** Sends a request and parses the JSON answer; non-2xx answers throw a typed ApiError. */
  async request<T>(req: HttpRequest): Promise<T> {
    const res = await this.send(req);
    const text = await res.text();
    if (res.status < 200 || res.status > 299) {
      throw errorFromResponse(res.status, text, res.header('Retry-After'), describe(req));
    }
    return (text ? JSON.parse(text) : {}) as T;
  }

  /** Sends a request whose body is read as a stream (watch). Non-2xx answers throw. */
  async stream(req: HttpRequest): Promise<HttpResponse> {
    const res = await this.send(req);
    if (res.status < 200 || res.status > 299) {
      throw errorFromResponse(res.status, await res.text(), res.header('Retry-After'), describe(req));
    }
    return res;
  }

  private async send(req: HttpRequest): Promise<HttpResponse> {
    const host = this.transport.host;
    const waited = await this.limiter.wait(req.signal);
    this.metrics?.restClientRateLimiterDuration.observe({ verb: req.method, host }, waited / 1000);
    const start = this.clock.now();
    let code = '<error>';
    try {
      const res = await this.transport.send(req);
      code = String(res.status);
      return res;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new ApiError(0, 'TransportError', `${errorMessage(err)} (${describe(req)})`, undefined, describe(req));
    } finally {
      this.metrics?.restClientRequests.inc({ code, method: req.method, host });
      this.metrics?.restClientLatency.observe({ verb: req.method, host }, (this.clock.now() - start) / 1000);
    }
  }
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
