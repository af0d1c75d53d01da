// The handover invariants of the sharding scenario, kept from every pod and claim event of the
// namespace: no instance id with two live pods (a pod created twice, by two shards or by one that
// missed its own create), never more live pods in a CloneSet than its replicas (no surge is
// configured), and no claim deleted under its live pod. A recreate update deletes a pod's claims
// right after the pod, and the claim's watch may deliver that before the pod's: a claim deletion
// is judged a while later (`settle`), lost only if a pod that held its id then is still live.
// Pure: events and times in, counts out.
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
  /** Claims deleted (marked or gone) under a pod of their instance id that stayed live. */
  lostPvcs: number;
}

/** How long a claim's deletion waits for its pod's deletion to be seen. */
export const CLAIM_SETTLE_MS = 5_000;

export class ReplicaLedger {
  /** CloneSet -> instance id -> uids of its live pods. */
  private readonly pods = new Map<string, Map<string, Set<string>>>();
  private readonly liveCount = new Map<string, number>();
  private readonly counts: LedgerCounts = { duplicates: 0, maxOverReplicas: 0, lostPvcs: 0 };
  private readonly replicas: (cloneSet: string) => number | undefined;
  /** Claim deletions not judged yet: when, and the uids live under their id then. */
  private pending: { at: number; cs: string; id: string; uids: string[] }[] = [];

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

  /** A claim marked for deletion or deleted, at `atMs`. */
  claimDeleted(obj: Obj, atMs: number): void {
    const id = obj.metadata?.labels?.[INSTANCE_ID];
    const cs = ownerOf(obj);
    if (!id || !cs) return;
    const uids = [...(this.pods.get(cs)?.get(id) ?? [])];
    if (uids.length > 0) this.pending.push({ at: atMs, cs, id, uids });
  }

  /** Judges the claim deletions older than CLAIM_SETTLE_MS at `nowMs`. */
  settle(nowMs: number): void {
    const due = this.pending.filter((p) => nowMs - p.at >= CLAIM_SETTLE_MS);
    this.pending = this.pending.filter((p) => nowMs - p.at < CLAIM_SETTLE_MS);
    for (const p of due) {
      const live = this.pods.get(p.cs)?.get(p.id);
      if (p.uids.some((uid) => live?.has(uid))) this.counts.lostPvcs++;
    }
  }

  /** Live pods by CloneSet and instance id, for the end-of-run check that each has its claims. */
  liveIds(): [cloneSet: string, id: string][] {
    return [...this.pods].flatMap(([cs, ids]) => [...ids.keys()].map((id): [string, string] => [cs, id]));
  }

  snapshot(): LedgerCounts {
    return { ...this.counts };
  }
}
