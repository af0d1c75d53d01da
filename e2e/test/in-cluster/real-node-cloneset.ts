// What the in-cluster scenarios share: a CloneSet of busybox containers on the real node, and
// kubectl reads of it and its pods.
import { afterAll, beforeAll } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';

export const RELEASE_NAMESPACE = 'cloneset-suite-system';
export const MANAGER_DEPLOYMENT = 'cloneset-suite-controller-manager';
export const LEASE = 'cloneset-suite-controller-manager';
export const IMAGE_1 = 'localhost/cloneset-suite/busybox:1';
export const IMAGE_2 = 'localhost/cloneset-suite/busybox:2';
/** Seconds between a container's start and its readiness probe passing (the probe waits for a file). */
export const READY_AFTER_S = 2;
const REAL_NODE = { label: 'cloneset-suite.io/real-node', taint: 'cloneset-suite.io/real-node' };

export interface Pod {
  metadata: {
    name: string;
    uid: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
  };
  spec: { nodeName?: string; containers: { image: string }[]; volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[] };
  status: {
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
    containerStatuses?: { containerID?: string; image: string; ready: boolean; state?: { running?: { startedAt: string } } }[];
  };
}
export interface CloneSet {
  metadata: { generation: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    updatedReadyReplicas?: number;
    updateRevision?: string;
    currentRevision?: string;
  };
}

export const isReady = (p: Pod): boolean => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
export const live = (pods: Pod[]): Pod[] => pods.filter((p) => !p.metadata.deletionTimestamp);
export const containerIdOf = (p: Pod): string | undefined => p.status.containerStatuses?.[0]?.containerID;
export const instanceIdOf = (p: Pod): string => p.metadata.labels?.['apps.kruise.io/cloneset-instance-id'] ?? p.metadata.name;

export interface CloneSetShape {
  name: string;
  replicas: number;
  /** Extra pod labels (e.g. kusionstack.io/control). */
  labels?: Record<string, string>;
  /** Extra spec fields of the CloneSet (e.g. volumeClaimTemplates). */
  spec?: Record<string, unknown>;
  /** The container's volumeMounts. */
  volumeMounts?: { name: string; mountPath: string }[];
}

/** A CloneSet of one busybox container on the real node, Ready READY_AFTER_S after it starts. */
export function realNodeCloneSet(shape: CloneSetShape): string {
  return JSON.stringify({
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: shape.name },
    spec: {
      replicas: shape.replicas,
      selector: { matchLabels: { app: shape.name } },
      updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 },
      ...shape.spec,
      template: {
        metadata: { labels: { app: shape.name, ...shape.labels } },
        spec: {
          nodeSelector: { [REAL_NODE.label]: 'true' },
          tolerations: [{ key: REAL_NODE.taint, operator: 'Exists', effect: 'NoSchedule' }],
          // busybox as pid 1 ignores SIGTERM: a short grace keeps recreations quick.
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'main',
              image: IMAGE_1,
              imagePullPolicy: 'Never',
              command: ['sh', '-c', `rm -f /tmp/ready; sleep ${READY_AFTER_S}; touch /tmp/ready; exec sleep 1000000`],
              readinessProbe: { exec: { command: ['cat', '/tmp/ready'] }, periodSeconds: 1 },
              volumeMounts: shape.volumeMounts,
            },
          ],
        },
      },
    },
  });
}

/** kubectl reads and writes of one CloneSet (and its pods, by the app label) in one namespace. */
export function cloneSetClient(namespace: string, name: string) {
  const pods = async (): Promise<Pod[]> => (await getJson<{ items: Pod[] }>(['pods', '-n', namespace, '-l', `app=${name}`]))?.items ?? [];
  const cloneSet = (): Promise<CloneSet | undefined> => getJson<CloneSet>(['clone', name, '-n', namespace]);
  const patch = (spec: unknown): Promise<string> => kubectl(['patch', 'clone', name, '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec })]);
  // A merge patch would replace the whole containers list (a CRD has no strategic merge).
  const setContainer = (field: 'image' | 'env', value: unknown): Promise<string> =>
    kubectl(['patch', 'clone', name, '-n', namespace, '--type=json', '-p', JSON.stringify([{ op: 'add', path: `/spec/template/spec/containers/0/${field}`, value }])]);
  /**
   * Waits until the CloneSet settled with `replicas` Ready pods, `updated` of them (all, unless
   * given) at the update revision and the others at the current one; returns them.
   */
  const settled = (replicas: number, what: string, updated = replicas): Promise<Pod[]> =>
    eventually(what, async () => {
      const cs = await cloneSet();
      const list = await pods();
      const s = cs?.status;
      const atUpdate = list.filter((p) => p.metadata.labels?.['controller-revision-hash'] === s?.updateRevision);
      return s?.observedGeneration === cs?.metadata.generation &&
        s?.updatedReadyReplicas === updated &&
        s.updatedReplicas === updated &&
        s.readyReplicas === replicas &&
        (updated === replicas) === (s.currentRevision === s.updateRevision) &&
        list.length === replicas &&
        atUpdate.length === updated &&
        list.every(isReady)
        ? list
        : undefined;
    }, { timeoutMs: 120_000, intervalMs: 500 });
  return { pods, cloneSet, patch, setContainer, settled };
}

/**
 * Samples the pods every 300 ms until stopped: the most live pods seen at once and every sample
 * in which two live pods had one instance id.
 */
export function watchForDuplicates(pods: () => Promise<Pod[]>): { stop: () => Promise<{ most: number; duplicates: string[] }> } {
  let most = 0;
  const duplicates: string[] = [];
  let done = false;
  const watching = (async () => {
    while (!done) {
      const list = live(await pods());
      most = Math.max(most, list.length);
      const ids = list.map(instanceIdOf);
      if (new Set(ids).size !== ids.length) duplicates.push(ids.join(','));
      await new Promise((r) => setTimeout(r, 300));
    }
  })();
  return {
    stop: async () => {
      done = true;
      await watching;
      return { most, duplicates };
    },
  };
}

/** The pod name of the replica holding the manager's Lease (its identity is <pod name>_<random>). */
export async function leaseHolder(): Promise<string> {
  const lease = await getJson<{ spec?: { holderIdentity?: string } }>(['lease', LEASE, '-n', RELEASE_NAMESPACE]);
  return (lease?.spec?.holderIdentity ?? '').split('_')[0] ?? '';
}

export interface CloneSetScene {
  /** The namespace's name (read inside a test or hook: it exists from beforeAll on). */
  readonly ns: string;
  /** The CloneSet `name` in it. */
  readonly cs: ReturnType<typeof cloneSetClient>;
}

/** Registers, in the calling describe block, a fresh namespace for its tests (removed after them) and a client for the CloneSet `name` in it. */
export function cloneSetScene(prefix: string, name: string): CloneSetScene {
  let ns: { name: string; remove: () => Promise<void> } | undefined;
  let cs: ReturnType<typeof cloneSetClient> | undefined;
  beforeAll(async () => {
    ns = await createTestNamespace(prefix);
    cs = cloneSetClient(ns.name, name);
  });
  afterAll(async () => {
    await ns?.remove();
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the scene is read before its beforeAll ran');
    return v;
  };
  return {
    get ns() {
      return ready(ns).name;
    },
    get cs() {
      return ready(cs);
    },
  };
}
