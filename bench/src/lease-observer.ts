// Watches the leader-election Lease of a bench namespace from the bench process (its own event
// loop and client), so renewals are timed by a watcher the controller child cannot stall.
import { Resources, SharedIndexInformer, type KubeObject } from '@cloneset-suite/kube-runtime';
import { benchClient, now, sleep } from './kube.ts';
import type { LeaseSighting } from './lease-renewals.ts';

interface LeaseObject extends KubeObject {
  spec?: { holderIdentity?: string; renewTime?: string };
}

export class LeaseObserver {
  private readonly abort = new AbortController();
  private readonly seen: LeaseSighting[] = [];
  private readonly name: string;
  private readonly ready: Promise<void>;

  private constructor(namespace: string, name: string) {
    this.name = name;
    const informer = new SharedIndexInformer<LeaseObject>({ client: benchClient().resource<LeaseObject>(Resources.leases), namespace });
    const record = (lease: LeaseObject): void => {
      if (lease.metadata?.name !== this.name || !lease.spec?.renewTime) return;
      this.seen.push({ seenAtMs: now(), holder: lease.spec.holderIdentity ?? '', renewTimeMs: Date.parse(lease.spec.renewTime) });
    };
    informer.addEventHandler({ onAdd: (l) => record(l as LeaseObject), onUpdate: (_old, l) => record(l as LeaseObject) });
    void informer.run(this.abort.signal).catch(() => undefined);
    this.ready = informer.waitForSync(this.abort.signal);
  }

  static async start(namespace: string, name: string): Promise<LeaseObserver> {
    const o = new LeaseObserver(namespace, name);
    await o.ready;
    return o;
  }

  /** Resolves once `holder` has been seen holding the lease; rejects after `timeoutMs`. */
  async waitForHolder(holder: string, timeoutMs: number): Promise<void> {
    const deadline = now() + timeoutMs;
    while (!this.seen.some((s) => s.holder === holder)) {
      if (now() > deadline) throw new Error(`lease ${this.name} not taken by ${holder} within ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  sightings(): LeaseSighting[] {
    return [...this.seen];
  }

  stop(): void {
    this.abort.abort();
  }
}
