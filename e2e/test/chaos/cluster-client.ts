// A direct API client for the chaos observers: they sample every few hundred ms, where a kubectl
// process per sample would cost more CPU than the controller under test.
import { KubeClient, Resources, loadKubeConfig, mergePatch, type KubeObject, type ObjectMeta } from '@cloneset-suite/kube-runtime';
import { testKubeconfigPath } from '@cloneset-suite/local-cluster';

export const cloneSets = { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets', kind: 'CloneSet', namespaced: true } as const;

export interface PodObject extends KubeObject {
  metadata: ObjectMeta;
  spec?: { containers?: { name: string; image: string }[]; nodeName?: string };
  status?: { phase?: string; conditions?: { type: string; status: string; reason?: string }[] };
}
export interface PvcObject extends KubeObject {
  metadata: ObjectMeta;
  status?: { phase?: string };
}
export interface CloneSetObject extends KubeObject {
  metadata: ObjectMeta;
  spec: { replicas?: number; updateStrategy?: { type?: string; partition?: unknown; maxSurge?: unknown; maxUnavailable?: unknown; paused?: boolean } } & Record<string, unknown>;
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    updatedReadyReplicas?: number;
    updateRevision?: string;
    currentRevision?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

export function observerClient(): KubeClient {
  return new KubeClient({ kubeConfig: loadKubeConfig(testKubeconfigPath()), qps: 100, burst: 200, userAgent: 'cloneset-suite/chaos-observer' });
}

export const podsOf = (c: KubeClient) => c.resource<PodObject>(Resources.pods);
export const pvcsOf = (c: KubeClient) => c.resource<PvcObject>(Resources.persistentVolumeClaims);
export const cloneSetsOf = (c: KubeClient) => c.resource<CloneSetObject>(cloneSets);

export const isReady = (p: PodObject): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Every pod's finalizers off (hooks, protection), so the namespace can go once the manager is stopped. */
export async function releaseFinalizers(c: KubeClient, namespace: string): Promise<void> {
  for (const p of (await podsOf(c).list({ namespace })).items) {
    if ((p.metadata.finalizers ?? []).length > 0) await podsOf(c).patch(namespace, p.metadata.name ?? '', mergePatch({ metadata: { finalizers: null } })).catch(() => undefined);
  }
}
