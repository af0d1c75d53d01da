// Construction of a pod and its PVCs for scale-out (OpenKruise's new pod; OpenKruise's PVC handling).
import type { V1PersistentVolumeClaim, V1Pod, V1PodTemplateSpec, V1Volume } from '@kubernetes/client-node';
import { podNameFor, pvcNameFor } from './instance-ids.ts';
import {
  INPLACE_UPDATE_READY,
  INSTANCE_ID_LABEL,
  KRUISE_POD_READY,
  LIFECYCLE_STATE_LABEL,
  LIFECYCLE_TIMESTAMP_ANNOTATION,
  LifecycleState,
  type FeatureGates,
} from '../keys.ts';
import { ownerRefTo } from '../owner-ref.ts';
import { revisionLabels } from '../revisions/revisions.ts';
import { rfc3339 } from '../time.ts';
import type { CloneSetLike } from '../types.ts';

export interface NewPod {
  pod: V1Pod;
  pvcs: V1PersistentVolumeClaim[];
}

/**
 * The pod at `revisionName` built from `template` (the revision's stored template
 * for the current revision). Both readiness gates are injected (their conditions are set True right after the create).
 */
export function buildPod(
  cs: CloneSetLike,
  template: V1PodTemplateSpec,
  revisionName: string,
  id: string,
  gates: FeatureGates,
  nowMs: number,
): NewPod {
  const csName = cs.metadata.name ?? '';
  const tplMeta = template.metadata ?? {};
  const spec = structuredClone(template.spec ?? { containers: [] });
  const vcts = cs.spec.volumeClaimTemplates ?? [];
  const vctNames = new Set(vcts.map((v) => v.metadata?.name ?? ''));
  const claimVolumes: V1Volume[] = vcts.map((v) => ({
    name: v.metadata?.name ?? '',
    persistentVolumeClaim: { claimName: pvcNameFor(v.metadata?.name ?? '', csName, id) },
  }));
  const volumes = [...claimVolumes, ...(spec.volumes ?? []).filter((v) => !vctNames.has(v.name))];
  if (volumes.length > 0) spec.volumes = volumes;
  const gatesList = [...(spec.readinessGates ?? [])];
  for (const type of [INPLACE_UPDATE_READY, KRUISE_POD_READY]) {
    if (!gatesList.some((g) => g.conditionType === type)) gatesList.push({ conditionType: type });
  }
  spec.readinessGates = gatesList;

  const pod: V1Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podNameFor(csName, id),
      generateName: `${csName}-`,
      namespace: cs.metadata.namespace,
      labels: {
        ...(tplMeta.labels ?? {}),
        ...revisionLabels(revisionName, gates),
        [INSTANCE_ID_LABEL]: id,
        [LIFECYCLE_STATE_LABEL]: LifecycleState.PreparingNormal,
      },
      annotations: { ...(tplMeta.annotations ?? {}), [LIFECYCLE_TIMESTAMP_ANNOTATION]: rfc3339(nowMs) },
      finalizers: tplMeta.finalizers?.slice(),
      ownerReferences: [ownerRefTo(cs)],
    },
    spec,
  };
  const pvcs = vcts.map((v): V1PersistentVolumeClaim => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: pvcNameFor(v.metadata?.name ?? '', csName, id),
      namespace: cs.metadata.namespace,
      labels: { ...(v.metadata?.labels ?? {}), ...(cs.spec.selector.matchLabels ?? {}), [INSTANCE_ID_LABEL]: id },
      ...(v.metadata?.annotations ? { annotations: { ...v.metadata.annotations } } : {}),
      ownerReferences: [ownerRefTo(cs)],
    },
    spec: structuredClone(v.spec),
  }));
  return { pod, pvcs };
}
