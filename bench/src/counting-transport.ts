// The controller child's transport: counts mutating requests by method and resource (pods,
// pods/status, clonesets/status...) and otherwise is the transport it wraps, including how many
// requests that one sends at once (the executor keeps that many pod writes in flight).
import type { HttpRequest, HttpResponse, Transport } from '@cloneset-suite/kube-runtime';
import { apiResourceOf } from './controller-protocol.ts';

export class CountingTransport implements Transport {
  readonly host: string;
  readonly maxConcurrentRequests: number | undefined;
  readonly byKind = new Map<string, number>();
  private readonly inner: Transport;
  constructor(inner: Transport) {
    this.inner = inner;
    this.host = inner.host;
    this.maxConcurrentRequests = inner.maxConcurrentRequests;
  }
  send(req: HttpRequest): Promise<HttpResponse> {
    if (req.method !== 'GET') {
      const kind = `${req.method} ${apiResourceOf(req.path)}`;
      this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
    }
    return this.inner.send(req);
  }
}
