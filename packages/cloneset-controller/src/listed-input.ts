// The planner's input for one CloneSet, built from objects listed from the apiserver (what
// kubectl-cloneset plan reads) the way the reconciler builds it from its caches: pods owned by the CloneSet (active and
// not), any pod of the namespace by name (instance id reuse), owned claims not being deleted,
// owned revisions matching the selector, every revision name of the namespace (collisions),
// node labels, and whether ImagePullJobs are served. managedFields are dropped, as the caches
// drop them.
import { labelSelectorMatches, type CloneSet } from '@cloneset-suite/api-types';
import type { FeatureGates } from './core/keys.ts';
import type { ReconcileInput } from './core/reconcile-plan.ts';
import { stripManagedFields, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { V1ControllerRevision, V1Node, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';

/** The objects listed; the lists are the namespace's (the CloneSet's share is picked here). */
export interface ClusterReads {
  cs: CloneSet;
  pods: readonly V1Pod[];
  /** Claims labelled with an instance id (the only ones the controller caches). */
  pvcs: readonly V1PersistentVolumeClaim[];
  revisions: readonly V1ControllerRevision[];
  /** Undefined when nodes could not be read (RBAC): scale-in then ranks without topology. */
  nodes: readonly V1Node[] | undefined;
  /** Why nodes could not be read. */
  nodesUnreadable?: string;
  imagePullJobCrdPresent: boolean;
}

export interface PlanSettings {
  gates: FeatureGates;
  nowMs: number;
  /** Instance ids of new pods: the controller draws its own, so names planned here are not theirs. */
  random: () => number;
}

const cached = <T>(obj: T): T => stripManagedFields(obj as KubeObject) as T;

const ownedBy = (uid: string) => (obj: { metadata?: { ownerReferences?: { uid: string }[] } }): boolean =>
  uid !== '' && (obj.metadata?.ownerReferences ?? []).some((r) => r.uid === uid);

function selects(cs: CloneSet, labels: Record<string, string> | undefined): boolean {
  try {
    return labelSelectorMatches(cs.spec.selector, labels ?? {});
  } catch {
    // A selector the apiserver stored but we cannot compile matches nothing, as in the controller.
    return false;
  }
}

export function reconcileInputOf(reads: ClusterReads, settings: PlanSettings): ReconcileInput {
  const cs = cached(reads.cs);
  const owned = ownedBy(cs.metadata?.uid ?? '');
  const pods = reads.pods.map(cached);
  const podsByName = new Map(pods.map((p) => [p.metadata?.name ?? '', p]));
  const revisionNames = new Set(reads.revisions.map((r) => r.metadata?.name ?? ''));
  const nodeLabels = reads.nodes ? new Map(reads.nodes.map((n) => [n.metadata?.name ?? '', n.metadata?.labels ?? {}])) : undefined;
  const nodeAllocatable = reads.nodes ? new Map(reads.nodes.map((n) => [n.metadata?.name ?? '', n.status?.allocatable ?? {}])) : undefined;
  return {
    cs: cs as unknown as ReconcileInput['cs'],
    pods: pods.filter(owned),
    pvcs: reads.pvcs.map(cached).filter((c) => owned(c) && !c.metadata?.deletionTimestamp),
    revisions: reads.revisions.map(cached).filter((r) => owned(r) && selects(cs, r.metadata?.labels)),
    revisionNameTaken: (name) => revisionNames.has(name),
    gates: settings.gates,
    nowMs: settings.nowMs,
    random: settings.random,
    podNamed: (name) => podsByName.get(name),
    imagePullJobCrdPresent: reads.imagePullJobCrdPresent,
    ...(nodeLabels ? { nodeLabels: (name: string) => nodeLabels.get(name) } : {}),
    ...(nodeAllocatable ? { nodeAllocatable: (name: string) => nodeAllocatable.get(name) } : {}),
  };
}
