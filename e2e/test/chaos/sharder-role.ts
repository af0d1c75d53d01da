// The sharder's part of the ControllerRing protocol (kubernetes-controller-sharding's
// docs/design.md), played through the API for a cluster test that must run without the sharder:
// assign a CloneSet and everything it controls to a shard, ask a shard to drain one, take over
// a dead shard's Lease before moving its objects. Label keys are the ones the shards read.
import { Resources, drainLabel, isNotFound, mergePatch, shardLabel, type KubeClient, type KubeObject } from '@cloneset-suite/kube-runtime';
import { eventually } from '@cloneset-suite/local-cluster';
import { cloneSets } from './cluster-client.ts';

interface LeaseObject extends KubeObject {
  spec?: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
}

export class SharderRole {
  private readonly client: KubeClient;
  private readonly namespace: string;
  readonly ring: string;

  constructor(client: KubeClient, namespace: string, ring: string) {
    this.client = client;
    this.namespace = namespace;
    this.ring = ring;
  }

  /** The shard label the sharder's webhook would set at admission. */
  labelsFor(shard: string): Record<string, string> {
    return { [shardLabel(this.ring)]: shard };
  }

  async shardOf(cloneSet: string): Promise<string | undefined> {
    const cs = await this.client.resource<KubeObject>(cloneSets).get(this.namespace, cloneSet);
    return cs.metadata?.labels?.[shardLabel(this.ring)];
  }

  /**
   * Moves a CloneSet and what it controls to `shard`, the CloneSet first: the order in which the
   * new shard may see the CloneSet before its pods, the case a handover must survive.
   */
  async assign(cloneSet: string, shard: string): Promise<number> {
    const cs = await this.client.resource<KubeObject>(cloneSets).get(this.namespace, cloneSet);
    await this.relabel(cloneSets, cloneSet, shard);
    return 1 + (await this.moveControlled(cs.metadata?.uid ?? '', shard));
  }

  /** Relabels every pod, PVC and ControllerRevision the CloneSet controls (the sharder moves them without a drain). */
  async moveControlled(cloneSetUid: string, shard: string, resources = [Resources.pods, Resources.persistentVolumeClaims, Resources.controllerRevisions]): Promise<number> {
    let moved = 0;
    for (const gvr of resources) {
      const items = (await this.client.resource<KubeObject>(gvr).list({ namespace: this.namespace })).items;
      for (const o of items.filter((i) => (i.metadata?.ownerReferences ?? []).some((r) => r.controller && r.uid === cloneSetUid))) {
        await this.relabel(gvr, o.metadata?.name ?? '', shard);
        moved++;
      }
    }
    return moved;
  }

  /** Asks the CloneSet's shard to let it go. */
  async drain(cloneSet: string): Promise<void> {
    await this.client.resource(cloneSets).patch(this.namespace, cloneSet, mergePatch({ metadata: { labels: { [drainLabel(this.ring)]: 'true' } } }));
  }

  /** Resolves once the shard acknowledged the drain: both labels gone. */
  async waitForDrainAcknowledged(cloneSet: string, timeoutMs: number): Promise<void> {
    await eventually(`shard acknowledging the drain of ${cloneSet}`, async () => {
      const labels = (await this.client.resource<KubeObject>(cloneSets).get(this.namespace, cloneSet)).metadata?.labels ?? {};
      return labels[drainLabel(this.ring)] === undefined && labels[shardLabel(this.ring)] === undefined;
    }, { timeoutMs, intervalMs: 100 });
  }

  /**
   * A shard that stopped renewing: once its Lease has expired, the sharder takes it (so a shard
   * that was only slow stops acting) before moving its objects. Resolves with the wait in ms.
   */
  async takeOverExpiredLease(shard: string, timeoutMs: number): Promise<number> {
    const started = Date.now();
    const leases = this.client.resource<LeaseObject>(Resources.leases);
    await eventually(`Lease ${shard} expired and taken over`, async () => {
      const lease = await leases.get(this.namespace, shard);
      const renewed = Date.parse(lease.spec?.renewTime ?? '');
      if (Date.now() < renewed + (lease.spec?.leaseDurationSeconds ?? 15) * 1_000) return false;
      await leases.replace({ ...lease, spec: { ...lease.spec, holderIdentity: 'sharder', renewTime: new Date().toISOString().replace('Z', '000Z') } });
      return true;
    }, { timeoutMs, intervalMs: 250 });
    return Date.now() - started;
  }

  private async relabel(gvr: Parameters<KubeClient['resource']>[0], name: string, shard: string): Promise<void> {
    try {
      await this.client.resource(gvr).patch(this.namespace, name, mergePatch({ metadata: { labels: { [shardLabel(this.ring)]: shard } } }));
    } catch (err) {
      if (!isNotFound(err)) throw err; // deleted meanwhile (a pod the rollout replaced)
    }
  }
}
