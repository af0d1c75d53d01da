// Shared shapes and small kubectl-backed helpers for the CloneSet integration files.
import { eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';

export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface Pod {
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    generation?: number;
    creationTimestamp: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: OwnerRef[];
    deletionTimestamp?: string;
  };
  spec: {
    nodeName?: string;
    schedulingGates?: { name: string }[];
    readinessGates?: { conditionType: string }[];
    volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[];
  } & Record<string, unknown>;
  status: { phase?: string; conditions?: Condition[] };
}

export interface Pvc {
  metadata: { name: string; uid: string; labels?: Record<string, string>; ownerReferences?: OwnerRef[]; deletionTimestamp?: string };
  status?: { phase?: string };
}

export interface CloneSetStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  updatedReplicas?: number;
  updatedReadyReplicas?: number;
  updateRevision?: string;
  currentRevision?: string;
  collisionCount?: number;
  conditions?: Condition[];
}

export interface CloneSet {
  metadata: { name: string; uid: string; generation: number; labels?: Record<string, string> };
  spec: Record<string, unknown> & { replicas?: number };
  status?: CloneSetStatus;
}

export interface ControllerRevision {
  metadata: { name: string; uid: string; labels?: Record<string, string>; ownerReferences?: OwnerRef[]; annotations?: Record<string, string> };
  revision: number;
  data?: unknown;
}

export interface KubeEvent {
  reason?: string;
  type?: string;
  message?: string;
  note?: string;
  count?: number;
  involvedObject?: { kind?: string; name?: string };
  reportingComponent?: string;
  source?: { component?: string };
}

export const INSTANCE_ID = 'apps.kruise.io/cloneset-instance-id';
export const REVISION_LABEL = 'controller-revision-hash';
export const TEMPLATE_HASH_LABEL = 'pod-template-hash';
export const LIFECYCLE_STATE = 'lifecycle.apps.kruise.io/state';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const isReady = (p: Pod): boolean => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
export const condition = (p: Pod, type: string): Condition | undefined => p.status.conditions?.find((c) => c.type === type);
export const idOf = (p: { metadata: { labels?: Record<string, string> } }): string => p.metadata.labels?.[INSTANCE_ID] ?? '';
/** Changes whenever the pod object is written to (name, uid, resourceVersion, generation). */
export const podWriteKey = (p: Pod): string => [p.metadata.name, p.metadata.uid, p.metadata.resourceVersion, p.metadata.generation ?? 0].join('/');

/** Pods of the namespace matching a label selector; terminating ones only when asked. */
export async function listPods(ns: string, selector: string, { terminating = false } = {}): Promise<Pod[]> {
  const items = (await getJson<{ items: Pod[] }>(['pods', '-n', ns, '-l', selector]))?.items ?? [];
  return terminating ? items : items.filter((p) => !p.metadata.deletionTimestamp);
}

export async function listPvcs(ns: string): Promise<Pvc[]> {
  return (await getJson<{ items: Pvc[] }>(['pvc', '-n', ns]))?.items ?? [];
}

/** As v1alpha1, by name: the same with or without the v1beta1 opt-in (kubectl's default then). */
export async function getCloneSet(ns: string, name: string): Promise<CloneSet | undefined> {
  return getJson<CloneSet>(['clonesets.v1alpha1.apps.kruise.io', name, '-n', ns]);
}

export async function listRevisions(ns: string): Promise<ControllerRevision[]> {
  return (await getJson<{ items: ControllerRevision[] }>(['controllerrevisions', '-n', ns]))?.items ?? [];
}

/** `kubectl get events` in the namespace (core/v1 view of what the recorder wrote). */
export async function listEvents(ns: string, reason?: string): Promise<KubeEvent[]> {
  const items = (await getJson<{ items: KubeEvent[] }>(['events', '-n', ns]))?.items ?? [];
  return reason ? items.filter((e) => e.reason === reason) : items;
}

/** Total occurrences of events with this reason (a series counts each repeat). */
export async function countEvents(ns: string, reason: string): Promise<number> {
  return (await listEvents(ns, reason)).reduce((n, e) => n + Math.max(e.count ?? 1, 1), 0);
}

export async function apply(ns: string, obj: unknown): Promise<void> {
  await kubectl(['apply', '-n', ns, '-f', '-'], JSON.stringify(obj));
}

export async function scale(ns: string, name: string, replicas: number): Promise<void> {
  await kubectl(['scale', 'clone', name, '-n', ns, `--replicas=${replicas}`]);
}

/** Waits for exactly n active pods matching the selector, all Ready; returns them. */
export async function readyPods(ns: string, selector: string, n: number, timeoutMs = 60_000): Promise<Pod[]> {
  return eventually(`${n} ready pods (${selector})`, async () => {
    const list = await listPods(ns, selector);
    return list.length === n && list.every(isReady) ? list : undefined;
  }, { timeoutMs });
}

/** A minimal CloneSet manifest; `extra` is merged into spec. */
export function cloneSet(name: string, replicas: number, extra: Record<string, unknown> = {}, template: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[]; spec?: Record<string, unknown> } = {}): unknown {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: {
          labels: { app: name, ...(template.labels ?? {}) },
          annotations: template.annotations,
          finalizers: template.finalizers,
        },
        spec: { containers: [{ name: 'main', image: 'nginx:alpine' }], ...(template.spec ?? {}) },
      },
      ...extra,
    },
  };
}
