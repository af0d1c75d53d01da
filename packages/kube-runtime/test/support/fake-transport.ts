// A scripted Transport: records requests and answers from a handler (kube-rs tower-test style).
import type { HttpRequest, HttpResponse, Transport } from '../../src/client/transport.ts';

export interface FakeAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw chunks for streaming answers (watch). */
  chunks?: string[];
  /** A live stream: chunks arrive as the test pushes them. */
  stream?: AsyncIterable<string>;
}

export class FakeTransport implements Transport {
  readonly host = 'fake:6443';
  readonly requests: HttpRequest[] = [];
  handler: (req: HttpRequest) => FakeAnswer | Promise<FakeAnswer>;

  constructor(handler: (req: HttpRequest) => FakeAnswer | Promise<FakeAnswer> = () => ({ body: {} })) {
    this.handler = handler;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    this.requests.push(req);
    const a = await this.handler(req);
    const text = typeof a.body === 'string' ? a.body : a.body === undefined ? '' : JSON.stringify(a.body);
    const headers = new Map(Object.entries(a.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const encoder = new TextEncoder();
    return {
      status: a.status ?? 200,
      header: (name) => headers.get(name.toLowerCase()) ?? null,
      text: () => Promise.resolve(text),
      chunks: async function* () {
        for await (const c of a.stream ?? a.chunks ?? [text]) {
          await Promise.resolve();
          yield encoder.encode(c);
        }
      },
    };
  }
}

export function status(code: number, reason: string, message: string, details?: unknown): FakeAnswer {
  return { status: code, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message, details } };
}

/**
 * A watch body the test feeds line by line; it ends on end() or when the request is aborted
 * (cleanly, or with `failOnAbort` rejecting with the abort's reason, as undici does).
 */
export class LiveStream implements AsyncIterable<string> {
  private readonly queue: string[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  private failure: { reason: unknown } | undefined;

  constructor(signal?: AbortSignal, options: { failOnAbort?: boolean } = {}) {
    const onAbort = (): void => {
      if (options.failOnAbort) this.failure = { reason: signal?.reason };
      this.end();
    };
    // As fetch: a request sent with an aborted signal ends at once.
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  }

  push(event: unknown): void {
    this.queue.push(`${JSON.stringify(event)}\n`);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const next = this.queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.failure) throw this.failure.reason;
      if (this.ended) return;
      await new Promise<void>((r) => (this.wake = r));
    }
  }
}
