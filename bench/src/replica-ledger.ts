// The handover invariants of the sharding scenario, kept from every pod and claim event of the
// namespace: no instance id with two live pods (a pod created twice, by two shards or by one that
// missed its own create), never more live pods in a CloneSet than its replicas (no surge is
// configured), and no claim deleted while an instance id still uses it. Pure: events in, counts out.
import { KRUISE_LABELS } from '@cloneset-suite/api-types';
import type { DeepReadonly, KubeObject } from '@cloneset-suite/kube-runtime';

const INSTANCE_ID = KRUISE_LABELS.cloneSetInstanceId;

type Obj = DeepReadonly<KubeObject>;

const ownerOf = (o: Obj): string | undefined => o.metadata?.ownerReferences?.find((r) => r.controller && r.kind === 'CloneSet')?.name;
const live = (o: Obj): boolean => !o.metadata?.deletionTimestamp;

export interface LedgerCounts {
  /** Times an instance id came to have two live pods. */
  duplicates: number;
  /** The most live pods any CloneSet had over its replicas (0 wanted). */
  maxOverReplicas: number;
  /** Claims deleted (marked or gone) while a live pod of their instance id existed. */
  lostPvcs: number;
}

export class ReplicaLedger {
  /** CloneSet -> instance id -> uids of its live pods. */
  private readonly pods = new Map<string, Map<string, Set<string>>>();
  private readonly liveCount = new Map<string, number>();
  private readonly counts: LedgerCounts = { duplicates: 0, maxOverReplicas: 0, lostPvcs: 0 };
  private readonly replicas: (cloneSet: string) => number | undefined;

  /** `replicas`: the CloneSet's wanted pods now. */
  constructor(replicas: (cloneSet: string) => number | undefined) {
    this.replicas = replicas;
  }

  /** A pod as a watch delivered it (added, changed, or `gone` when deleted). */
  pod(obj: Obj, gone = false): void {
    const cs = ownerOf(obj);
    const id = obj.metadata?.labels?.[INSTANCE_ID];
    const uid = obj.metadata?.uid;
    if (!cs || !id || !uid) return;
    const ids = this.pods.get(cs) ?? new Map<string, Set<string>>();
    this.pods.set(cs, ids);
    const holders = ids.get(id) ?? new Set<string>();
    const had = holders.has(uid);
    if (!gone && live(obj)) {
      if (had) return;
      holders.add(uid);
      ids.set(id, holders);
      if (holders.size === 2) this.counts.duplicates++;
      const n = (this.liveCount.get(cs) ?? 0) + 1;
      this.liveCount.set(cs, n);
      const want = this.replicas(cs);
      if (want !== undefined) this.counts.maxOverReplicas = Math.max(this.counts.maxOverReplicas, n - want);
    } else if (had) {
      holders.delete(uid);
      if (holders.size === 0) ids.delete(id);
      this.liveCount.set(cs, (this.liveCount.get(cs) ?? 1) - 1);
    }
  }

  /** A claim marked for deletion or deleted: lost when its instance id still has a live pod. */
  claimDeleted(obj: Obj): void {
    const id = obj.metadata?.labels?.[INSTANCE_ID];
    const cs = ownerOf(obj);
    if (!id || !cs) return;
    if ((this.pods.get(cs)?.get(id)?.size ?? 0) > 0) this.counts.lostPvcs++;
  }

  snapshot(): LedgerCounts {
    return { ...this.counts };
  }
}
