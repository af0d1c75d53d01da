// An in-memory apiserver transport for the controller shell's unit tests: lists serve fixed
// objects per resource path, watches stay open (silent) until aborted, and every write is
// recorded and answered by the test's handler (200 with the object by default).
import type { HttpRequest, HttpResponse, Transport } from '@cloneset-suite/kube-runtime';

export interface Answer {
  status?: number;
  body?: unknown;
}

export class FakeApiServer implements Transport {
  readonly host = 'fake:6443';
  readonly writes: HttpRequest[] = [];
  /** Objects listed per resource, keyed by the last path segment (pods, podtransitionrules, ...). */
  readonly objects = new Map<string, unknown[]>();
  onWrite: (req: HttpRequest) => Answer = (req) => ({ body: req.body ? (JSON.parse(req.body) as unknown) : {} });

  send(req: HttpRequest): Promise<HttpResponse> {
    if (req.method !== 'GET') {
      this.writes.push(req);
      const answer = this.onWrite(req);
      return Promise.resolve(response(answer.status ?? 200, answer.body ?? {}));
    }
    if (req.query?.watch) return Promise.resolve(silentWatch(req.signal));
    const resource = req.path.split('/').at(-1) ?? '';
    return Promise.resolve(response(200, { metadata: { resourceVersion: '1' }, items: this.objects.get(resource) ?? [] }));
  }

  /** Writes whose path ends with `suffix` (e.g. '/status'), by method. */
  writesTo(method: string, pathPattern: RegExp): HttpRequest[] {
    return this.writes.filter((w) => w.method === method && pathPattern.test(w.path));
  }
}

export function apiStatus(code: number, reason: string, message: string): Answer {
  return { status: code, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message } };
}

function response(status: number, body: unknown): HttpResponse {
  const text = JSON.stringify(body);
  return {
    status,
    header: () => null,
    text: () => Promise.resolve(text),
    chunks: () => toAsync([new TextEncoder().encode(text)]),
  };
}

function silentWatch(signal: AbortSignal | undefined): HttpResponse {
  return {
    status: 200,
    header: () => null,
    text: () => Promise.resolve(''),
    chunks: async function* () {
      await new Promise<void>((resolve) => {
        if (signal?.aborted) resolve();
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      yield* [];
    },
  };
}

async function* toAsync<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield await Promise.resolve(item);
}
