// The guarantees a CloneSet rollout keeps whatever happens to the controller, checked on each
// sample of the cluster (pure: the sampler feeds snapshots, this says what broke). A history
// carries what earlier samples saw, so "deleted while its pod lives" and "id reused while its
// first pod still exists" are caught between samples, not only within one.

export const INSTANCE_ID_LABEL = 'apps.kruise.io/cloneset-instance-id';

export interface PodView {
  name: string;
  uid: string;
  instanceId: string | undefined;
  ready: boolean;
  terminating: boolean;
  /** For checks beyond this module's (the user's own marks): the pod's labels and annotations. */
  labels?: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
}

export interface PvcView {
  name: string;
  uid: string;
  instanceId: string | undefined;
  /** uids of the controller owner references. */
  ownerUids: readonly string[];
  terminating: boolean;
}

/** The CloneSet's replicas and how far the controller has seen its spec. */
export interface CloneSetView {
  replicas: number;
  generation: number;
  observedGeneration: number;
}

/**
 * One sample: PVCs listed first, then pods, so a pod seen alive was alive after the PVC list; then
 * (when the sampler follows the spec) the CloneSet, so its replicas are at least as new as those
 * the listed pods were created under.
 */
export interface Snapshot {
  pvcs: readonly PvcView[];
  pods: readonly PodView[];
  cloneSet?: CloneSetView;
}

export interface Limits {
  cloneSetUid: string;
  /** spec.replicas, for snapshots without a view of the CloneSet. */
  replicas: number;
  maxSurge: number;
  maxUnavailable: number;
  /** Availability is checked only once the CloneSet was fully available (not while it is first created). */
  checkAvailability: boolean;
  /** Whether pods carry PVCs (volumeClaimTemplates given). */
  withPvcs: boolean;
}

export interface History {
  /** PVCs of the previous sample that were not being deleted, by name. */
  livePvcs: ReadonlyMap<string, PvcView>;
  /** instance id -> pod uid, for pods of the previous sample. */
  podByInstanceId: ReadonlyMap<string, string>;
  /** pod uid -> instance id ever seen, to catch a relabelled pod. */
  instanceIdByPodUid: ReadonlyMap<string, string | undefined>;
  /** The replica counts still in force from earlier samples (see replicasInForce). */
  replicasInForce?: ReplicasInForce;
}

export const emptyHistory = (): History => ({ livePvcs: new Map(), podByInstanceId: new Map(), instanceIdByPodUid: new Map() });

/** Surge is checked against the largest replica count in force, availability against the smallest. */
export interface ReplicasInForce {
  largest: number;
  smallest: number;
}

/**
 * A change of spec.replicas does not bind the pods at once: pods created under a larger count may
 * stand until the controller has seen the change and deleted them (it cannot while the apiserver
 * refuses its writes), and under a smaller count fewer pods had to be ready. So an earlier count
 * stays in force until the controller has observed the current spec (status.observedGeneration)
 * and the pods fit the current count; from then on the controller decides by that count alone.
 * Without a view of the CloneSet, `limits.replicas` is the only count.
 */
export function replicasInForce(
  earlier: ReplicasInForce | undefined,
  snap: Snapshot,
  limits: Limits,
  counts: { active: number; ready: number },
): { now: ReplicasInForce; next: ReplicasInForce } {
  const cs = snap.cloneSet;
  if (!cs) return { now: { largest: limits.replicas, smallest: limits.replicas }, next: { largest: limits.replicas, smallest: limits.replicas } };
  const now = { largest: Math.max(earlier?.largest ?? cs.replicas, cs.replicas), smallest: Math.min(earlier?.smallest ?? cs.replicas, cs.replicas) };
  const caughtUp = cs.observedGeneration >= cs.generation;
  return {
    now,
    next: {
      largest: caughtUp && counts.active <= cs.replicas + limits.maxSurge ? cs.replicas : now.largest,
      smallest: caughtUp && cs.replicas - counts.ready <= limits.maxUnavailable ? cs.replicas : now.smallest,
    },
  };
}

export interface Violation {
  invariant: 'surge' | 'unavailable' | 'instance-id' | 'pvc-owner' | 'pvc-duplicate' | 'pvc-deleted-under-pod';
  detail: string;
}

const byInstanceId = <T extends { instanceId: string | undefined }>(items: readonly T[]): Map<string, T[]> => {
  const m = new Map<string, T[]>();
  for (const item of items) if (item.instanceId !== undefined) m.set(item.instanceId, [...(m.get(item.instanceId) ?? []), item]);
  return m;
};

/** Checks one snapshot against the limits and what earlier samples saw; returns the next history. */
export function checkSnapshot(history: History, snap: Snapshot, limits: Limits): { history: History; violations: Violation[] } {
  const violations: Violation[] = [];
  const active = snap.pods.filter((p) => !p.terminating);
  const ready = active.filter((p) => p.ready).length;
  const replicas = replicasInForce(history.replicasInForce, snap, limits, { active: active.length, ready });

  if (active.length > replicas.now.largest + limits.maxSurge) {
    violations.push({ invariant: 'surge', detail: `${active.length} active pods > replicas ${replicas.now.largest} + maxSurge ${limits.maxSurge}` });
  }
  if (limits.checkAvailability) {
    const unavailable = replicas.now.smallest - ready;
    if (unavailable > limits.maxUnavailable) {
      violations.push({ invariant: 'unavailable', detail: `${unavailable} unavailable (${ready} ready of ${replicas.now.smallest}) > maxUnavailable ${limits.maxUnavailable}` });
    }
  }

  // One instance id, one pod object at a time (terminating ones included: the name is taken).
  const podsById = byInstanceId(snap.pods);
  for (const [id, pods] of podsById) {
    if (pods.length > 1) violations.push({ invariant: 'instance-id', detail: `instance id ${id} used by ${pods.map((p) => p.name).join(', ')}` });
  }
  for (const pod of snap.pods) {
    if (pod.instanceId === undefined) violations.push({ invariant: 'instance-id', detail: `pod ${pod.name} has no instance id` });
    const seen = history.instanceIdByPodUid.get(pod.uid);
    if (history.instanceIdByPodUid.has(pod.uid) && seen !== pod.instanceId) {
      violations.push({ invariant: 'instance-id', detail: `pod ${pod.name} changed instance id ${seen} -> ${pod.instanceId}` });
    }
  }
  if (limits.withPvcs) {
    const livePvcs = snap.pvcs.filter((c) => !c.terminating);
    const activeIds = new Set(active.map((p) => p.instanceId));
    for (const pvc of livePvcs) {
      if (pvc.ownerUids.length !== 1 || (pvc.ownerUids[0] !== limits.cloneSetUid && !snap.pods.some((p) => p.uid === pvc.ownerUids[0]))) {
        violations.push({ invariant: 'pvc-owner', detail: `PVC ${pvc.name} controller owners [${pvc.ownerUids.join(', ')}] are not the CloneSet or one of its pods` });
      }
      if (pvc.instanceId === undefined) violations.push({ invariant: 'pvc-owner', detail: `PVC ${pvc.name} has no instance id` });
    }
    // Names are per (template, id): two live claims of one name cannot exist, so count ids per template prefix.
    const names = new Set<string>();
    for (const pvc of livePvcs) {
      if (names.has(pvc.name)) violations.push({ invariant: 'pvc-duplicate', detail: `PVC name ${pvc.name} twice` });
      names.add(pvc.name);
    }
    // An active pod whose claim is on its way out: it was created (or kept) with an id whose claim
    // the controller deleted, and will never schedule (or loses its volume) once the claim goes.
    const liveNames = new Set(livePvcs.map((c) => c.name));
    for (const pvc of snap.pvcs) {
      const pod = pvc.terminating && !liveNames.has(pvc.name) ? active.find((p) => p.instanceId === pvc.instanceId) : undefined;
      if (pod) violations.push({ invariant: 'pvc-deleted-under-pod', detail: `pod ${pod.name} (id ${pvc.instanceId}) is active while its PVC ${pvc.name} is being deleted` });
    }
    // Gone since the previous sample while a pod with its id is active now (terminating: above).
    const listed = new Set(snap.pvcs.map((c) => c.name));
    for (const [name, pvc] of history.livePvcs) {
      if (!listed.has(name) && pvc.instanceId !== undefined && activeIds.has(pvc.instanceId)) {
        const pod = active.find((p) => p.instanceId === pvc.instanceId);
        // A new pod reusing the id gets a new claim; the old one going is fine only if its pod went first.
        if (pod && history.podByInstanceId.get(pvc.instanceId) === pod.uid) {
          violations.push({ invariant: 'pvc-deleted-under-pod', detail: `PVC ${name} deleted while pod ${pod.name} (id ${pvc.instanceId}) lives` });
        }
      }
    }
  }

  return {
    violations,
    history: {
      livePvcs: new Map(snap.pvcs.filter((c) => !c.terminating).map((c) => [c.name, c])),
      podByInstanceId: new Map(snap.pods.flatMap((p) => (p.instanceId === undefined ? [] : [[p.instanceId, p.uid] as const]))),
      instanceIdByPodUid: new Map([...history.instanceIdByPodUid, ...snap.pods.map((p) => [p.uid, p.instanceId] as const)]),
      replicasInForce: replicas.next,
    },
  };
}

/** The final state of a settled CloneSet with PVC templates: every active pod has its claims, bound, and no claim is orphaned. */
export function checkSettledClaims(snap: Snapshot, templates: readonly string[], cloneSetName: string, boundPvcNames: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const activeIds = new Set(snap.pods.filter((p) => !p.terminating).map((p) => p.instanceId));
  const live = snap.pvcs.filter((c) => !c.terminating);
  for (const id of activeIds) {
    for (const t of templates) {
      const name = `${t}-${cloneSetName}-${id}`;
      if (!live.some((c) => c.name === name)) problems.push(`pod with id ${id} has no PVC ${name}`);
      else if (!boundPvcNames.has(name)) problems.push(`PVC ${name} not Bound`);
    }
  }
  for (const c of live) if (!activeIds.has(c.instanceId)) problems.push(`PVC ${c.name} (id ${c.instanceId}) belongs to no active pod`);
  return problems;
}
