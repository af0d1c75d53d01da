// CloneSet manifests and rollout checks the chaos scenarios share.
import type { KubeClient } from '@cloneset-suite/kube-runtime';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { INSTANCE_ID_LABEL } from '../../src/chaos/invariants.ts';
import { cloneSetsOf, isReady, podsOf, pvcsOf, type CloneSetObject } from './cluster-client.ts';

export interface ChaosCloneSet {
  name: string;
  replicas: number;
  strategy: 'ReCreate' | 'InPlaceIfPossible';
  maxSurge: number;
  maxUnavailable: number;
  withPvcs: boolean;
  image?: string;
}

export const PVC_TEMPLATE = 'data';

export function chaosCloneSet(o: ChaosCloneSet): Record<string, unknown> {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: o.name },
    spec: {
      replicas: o.replicas,
      selector: { matchLabels: { app: o.name } },
      template: {
        metadata: { labels: { app: o.name }, annotations: { 'sim.cloneset-suite.io/ready-delay': '300ms' } },
        spec: {
          containers: [{ name: 'main', image: o.image ?? 'nginx:1.0', ...(o.withPvcs ? { volumeMounts: [{ name: PVC_TEMPLATE, mountPath: '/data' }] } : {}) }],
        },
      },
      updateStrategy: { type: o.strategy, maxSurge: o.maxSurge, maxUnavailable: o.maxUnavailable },
      ...(o.withPvcs
        ? {
            volumeClaimTemplates: [
              { metadata: { name: PVC_TEMPLATE }, spec: { storageClassName: 'standard', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } } },
            ],
          }
        : {}),
    },
  };
}

export async function applyObject(namespace: string, obj: unknown): Promise<void> {
  await kubectl(['apply', '-n', namespace, '-f', '-'], JSON.stringify(obj));
}

export async function setImage(namespace: string, name: string, image: string): Promise<void> {
  await kubectl(['patch', 'clone', name, '-n', namespace, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }])]);
}

/** Done: status observed the latest spec, every replica Ready on the update revision, nothing else left. */
export async function rolloutComplete(client: KubeClient, namespace: string, name: string): Promise<boolean> {
  const cs = await cloneSetsOf(client).get(namespace, name);
  const s = cs.status;
  const replicas = cs.spec.replicas ?? 1;
  if (!s || s.observedGeneration !== cs.metadata.generation || s.updateRevision === undefined) return false;
  if (s.currentRevision !== s.updateRevision || s.updatedReadyReplicas !== replicas || s.replicas !== replicas) return false;
  const pods = (await podsOf(client).list({ namespace, labelSelector: `app=${name}` })).items;
  return (
    pods.length === replicas &&
    pods.every((p) => !p.metadata.deletionTimestamp && isReady(p) && p.metadata.labels?.['controller-revision-hash'] === s.updateRevision)
  );
}

export async function waitForRollout(client: KubeClient, namespace: string, name: string, timeoutMs: number): Promise<void> {
  await eventually(`CloneSet ${name} rolled out`, async () => (await rolloutComplete(client, namespace, name)) || undefined, { timeoutMs, intervalMs: 500 }).catch(async (err: unknown) => {
    const cs = await cloneSetsOf(client).get(namespace, name).catch(() => undefined);
    const lagging = await laggingPods(client, namespace, name, cs?.status?.updateRevision).catch((e: unknown) => [`(pods not listed: ${String(e)})`]);
    throw new Error(`${(err as Error).message}\nstatus: ${JSON.stringify(cs?.status)}\npods keeping it from completing:\n${lagging.join('\n')}`, { cause: err });
  });
}

/** One line per pod that is terminating, not Ready or not on the update revision: what a stuck rollout waits for. */
async function laggingPods(client: KubeClient, namespace: string, name: string, updateRevision: string | undefined): Promise<string[]> {
  const pods = (await podsOf(client).list({ namespace, labelSelector: `app=${name}` })).items;
  return pods
    .filter((p) => p.metadata.deletionTimestamp || !isReady(p) || p.metadata.labels?.['controller-revision-hash'] !== updateRevision)
    .map((p) =>
      JSON.stringify({
        name: p.metadata.name,
        labels: p.metadata.labels,
        finalizers: p.metadata.finalizers,
        deleting: p.metadata.deletionTimestamp,
        node: p.spec?.nodeName,
        phase: p.status?.phase,
        conditions: p.status?.conditions?.map((c) => `${c.type}=${c.status}${c.reason ? `(${c.reason})` : ''}`),
      }),
    );
}

/** resourceVersions of the CloneSet, its pods and PVCs: equal across a quiet period = no writes. */
export async function writeFingerprint(client: KubeClient, namespace: string, name: string): Promise<Map<string, string>> {
  const cs: CloneSetObject = await cloneSetsOf(client).get(namespace, name);
  const pods = (await podsOf(client).list({ namespace, labelSelector: `app=${name}` })).items;
  const pvcs = (await pvcsOf(client).list({ namespace, labelSelector: `app=${name}` })).items;
  return new Map([
    [`clone/${name}`, cs.metadata.resourceVersion ?? ''],
    ...pods.map((p) => [`pod/${p.metadata.name}`, p.metadata.resourceVersion ?? ''] as const),
    ...pvcs.map((c) => [`pvc/${c.metadata.name}`, c.metadata.resourceVersion ?? ''] as const),
  ]);
}

export function changedBetween(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): string[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].filter((k) => a.get(k) !== b.get(k)).sort();
}

export const idsOf = (pods: readonly { metadata: { labels?: Record<string, string> } }[]): string[] => pods.map((p) => p.metadata.labels?.[INSTANCE_ID_LABEL] ?? '');
