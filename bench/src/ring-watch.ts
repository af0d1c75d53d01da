// The sharding scenario's watch of its namespace: every pod and claim event into the handover
// ledger (./replica-ledger.ts), the CloneSets' replicas for it, and each CloneSet's shard label, so
// a phase can say which shard holds what and how many CloneSets moved.
import { Resources, SharedIndexInformer, type DeepReadonly, type KubeObject } from '@cloneset-suite/kube-runtime';
import { benchClient, cloneSetResource, now, sleep } from './kube.ts';
import { CLAIM_SETTLE_MS, ReplicaLedger, type LedgerCounts } from './replica-ledger.ts';
import type { Pod } from './pods.ts';

type CloneSetLike = KubeObject & { spec?: { replicas?: number } };

export class RingWatch {
  private readonly abort = new AbortController();
  private readonly pods: SharedIndexInformer<KubeObject>;
  private readonly claims: SharedIndexInformer<KubeObject>;
  private readonly cloneSets: SharedIndexInformer<CloneSetLike>;
  private readonly ledger: ReplicaLedger;
  private readonly shardLabel: string | undefined;
  private readonly settleTimer: NodeJS.Timeout;
  /** Shard label changes of CloneSets seen (a drain and a reassignment are two). */
  labelChanges = 0;

  private constructor(namespace: string, shardLabel: string | undefined) {
    const client = benchClient();
    this.shardLabel = shardLabel;
    this.pods = new SharedIndexInformer<KubeObject>({ client: client.resource(Resources.pods), namespace });
    this.claims = new SharedIndexInformer<KubeObject>({ client: client.resource(Resources.persistentVolumeClaims), namespace });
    this.cloneSets = new SharedIndexInformer<CloneSetLike>({ client: client.resource<CloneSetLike>(cloneSetResource), namespace });
    this.ledger = new ReplicaLedger((name) => this.cloneSets.list().find((cs) => cs.metadata?.name === name)?.spec?.replicas);
    this.pods.addEventHandler({ onAdd: (p) => this.ledger.pod(p), onUpdate: (_o, p) => this.ledger.pod(p), onDelete: (p) => this.ledger.pod(p, true) });
    const claimGone = (c: DeepReadonly<KubeObject>): void => this.ledger.claimDeleted(c, now());
    this.settleTimer = setInterval(() => this.ledger.settle(now()), 1_000);
    this.claims.addEventHandler({
      onUpdate: (old, c) => void (!old.metadata?.deletionTimestamp && c.metadata?.deletionTimestamp ? claimGone(c) : undefined),
      onDelete: (c) => void (c.metadata?.deletionTimestamp ? undefined : claimGone(c)),
    });
    this.cloneSets.addEventHandler({
      onUpdate: (old, cs) => {
        if (shardLabel && old.metadata?.labels?.[shardLabel] !== cs.metadata?.labels?.[shardLabel]) this.labelChanges++;
      },
    });
  }

  static async start(namespace: string, shardLabel: string | undefined): Promise<RingWatch> {
    const w = new RingWatch(namespace, shardLabel);
    for (const i of [w.pods, w.claims, w.cloneSets]) void i.run(w.abort.signal).catch(() => undefined);
    await Promise.all([w.pods, w.claims, w.cloneSets].map((i) => i.waitForSync(w.abort.signal)));
    return w;
  }

  /** The counts once every claim deletion seen so far is judged. */
  async counts(): Promise<LedgerCounts> {
    await sleep(CLAIM_SETTLE_MS);
    this.ledger.settle(now());
    return this.ledger.snapshot();
  }

  /** Live pods of CloneSets with claim templates whose claim (`<template>-<cloneset>-<id>`) is missing. */
  podsWithoutClaims(templates: ReadonlyMap<string, string>): number {
    const claims = new Set(this.claims.list().filter((c) => !c.metadata?.deletionTimestamp).map((c) => c.metadata?.name));
    return this.ledger.liveIds().filter(([cs, id]) => templates.has(cs) && !claims.has(`${templates.get(cs)}-${cs}-${id}`)).length;
  }

  /** CloneSet name -> the shard its label names now ('' when unassigned). */
  shards(): Map<string, string> {
    return new Map(this.cloneSets.list().map((cs) => [cs.metadata?.name ?? '', (this.shardLabel && cs.metadata?.labels?.[this.shardLabel]) || '']));
  }

  /** Live pods of these CloneSets whose spec asks for `image` (created or updated for it). */
  podsFor(cloneSets: ReadonlySet<string>, image: string): number {
    return this.pods.list().filter((p) => {
      const owner = p.metadata?.ownerReferences?.find((r) => r.controller)?.name;
      return owner !== undefined && cloneSets.has(owner) && !p.metadata?.deletionTimestamp && ((p as Pod).spec?.containers ?? []).every((c) => c.image === image);
    }).length;
  }

  stop(): void {
    clearInterval(this.settleTimer);
    this.abort.abort();
  }
}
