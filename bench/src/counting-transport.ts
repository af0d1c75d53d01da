// The controller child's transport: counts mutating requests by method and resource (pods,
// pods/status, clonesets/status...) and otherwise is the transport it wraps, including how many
// requests that one sends at once (the executor keeps that many pod writes in flight). Lease
// requests may go to a transport of their own: the controller-manager's elector has its own
// client and connections, so a burst of reconcile writes never queues a renewal behind it.
import type { HttpRequest, HttpResponse, Transport } from '@cloneset-suite/kube-runtime';
import { apiResourceOf } from './controller-protocol.ts';

export class CountingTransport implements Transport {
  readonly host: string;
  readonly maxConcurrentRequests: number | undefined;
  readonly byKind = new Map<string, number>();
  private readonly inner: Transport;
  private readonly leases: Transport;
  constructor(inner: Transport, { leases = inner }: { leases?: Transport } = {}) {
    this.inner = inner;
    this.leases = leases;
    this.host = inner.host;
    this.maxConcurrentRequests = inner.maxConcurrentRequests;
  }
  send(req: HttpRequest): Promise<HttpResponse> {
    const resource = apiResourceOf(req.path);
    if (req.method !== 'GET') {
      const kind = `${req.method} ${resource}`;
      this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
    }
    return (resource === 'leases' ? this.leases : this.inner).send(req);
  }
}
