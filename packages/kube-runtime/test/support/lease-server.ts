// A tiny Lease store with the apiserver's optimistic concurrency (create conflicts, PUT needs the
// current resourceVersion), for leader-election tests on a FakeTransport.
import type { HttpRequest } from '../../src/client/transport.ts';
import type { Lease } from '../../src/leader-election.ts';
import { status, type FakeAnswer } from './fake-transport.ts';

export class LeaseServer {
  rv = 0;
  lease: Lease | undefined;
  writes = 0;
  readonly holders: string[] = [];

  handle(req: HttpRequest): FakeAnswer {
    if (req.method === 'GET') return this.lease ? { body: this.lease } : status(404, 'NotFound', 'leases "l" not found');
    const body = JSON.parse(req.body ?? '{}') as Lease;
    if (req.method === 'POST') {
      if (this.lease) return status(409, 'AlreadyExists', 'exists');
    } else if (body.metadata?.resourceVersion !== this.lease?.metadata?.resourceVersion) {
      return status(409, 'Conflict', 'the object has been modified');
    }
    this.writes++;
    this.holders.push(body.spec?.holderIdentity ?? '');
    this.lease = { ...body, metadata: { ...body.metadata, resourceVersion: String(++this.rv) } };
    return { body: this.lease };
  }
}
