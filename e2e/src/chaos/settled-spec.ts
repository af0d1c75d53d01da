// Whether a CloneSet ended where the last user write put it (concurrent writers): its
// spec is the last one written, the status observed it, the pods are that many, Ready, and at
// least replicas - partition of them run the update revision's image. Without the
// CloneSetPartitionRollback gate a partition raised later leaves updated pods updated, so more
// may be updated than the partition asks, never fewer. Pure: returns what is still off.

export interface WantedSpec {
  replicas: number;
  partition: number;
  image: string;
  paused: boolean;
}

export interface ObservedCloneSet {
  generation: number | undefined;
  spec: { replicas?: number; partition?: unknown; paused?: boolean; image?: string };
  status?: { observedGeneration?: number; replicas?: number; readyReplicas?: number; updatedReplicas?: number; updatedReadyReplicas?: number; expectedUpdatedReplicas?: number; updateRevision?: string };
}

export interface ObservedPod {
  name: string;
  revision: string | undefined;
  image: string | undefined;
  ready: boolean;
  terminating: boolean;
}

export function specMismatches(want: WantedSpec, cs: ObservedCloneSet, pods: readonly ObservedPod[], updateRevisionImage: string | undefined): string[] {
  const out: string[] = [];
  const field = (name: string, got: unknown, expected: unknown): void => {
    if (got !== expected) out.push(`${name} is ${String(got)}, want ${String(expected)}`);
  };
  field('spec.replicas', cs.spec.replicas, want.replicas);
  field('spec.updateStrategy.partition', cs.spec.partition ?? 0, want.partition);
  field('spec.updateStrategy.paused', cs.spec.paused ?? false, want.paused);
  field('spec image', cs.spec.image, want.image);
  const s = cs.status ?? {};
  field('status.observedGeneration', s.observedGeneration, cs.generation);
  field('status.replicas', s.replicas, want.replicas);
  field('status.readyReplicas', s.readyReplicas, want.replicas);
  const expectedUpdated = Math.max(want.replicas - want.partition, 0);
  field('status.expectedUpdatedReplicas', s.expectedUpdatedReplicas, expectedUpdated);
  if ((s.updatedReplicas ?? 0) < expectedUpdated) out.push(`status.updatedReplicas ${s.updatedReplicas} < replicas - partition = ${expectedUpdated}`);
  field('status.updatedReadyReplicas', s.updatedReadyReplicas, s.updatedReplicas);
  field('update revision image', updateRevisionImage, want.image);
  const active = pods.filter((p) => !p.terminating);
  if (active.length !== pods.length) out.push(`${pods.length - active.length} pod(s) still terminating`);
  field('active pods', active.length, want.replicas);
  const notReady = active.filter((p) => !p.ready).map((p) => p.name);
  if (notReady.length > 0) out.push(`not Ready: ${notReady.join(', ')}`);
  const updated = active.filter((p) => p.revision !== undefined && p.revision === s.updateRevision);
  if (updated.length < expectedUpdated) out.push(`${updated.length} pods on the update revision < ${expectedUpdated}`);
  for (const p of updated) if (p.image !== want.image) out.push(`pod ${p.name} on the update revision runs ${p.image}, want ${want.image}`);
  return out;
}
