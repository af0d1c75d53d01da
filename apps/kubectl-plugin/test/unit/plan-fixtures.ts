// CloneSets, their revisions and pods as the apiserver serves them, for the `plan` tests. The
// revisions are made by the controller's own planner, so their names are the real ones.
import { FEATURE_GATE_DEFAULTS, planReconcile, type ReconcileInput } from '@cloneset-suite/cloneset-controller';
import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';

export const NOW = Date.parse('2030-01-01T12:00:00Z');
export const UID = 'uid-web';
export type CloneSetObject = ReconcileInput['cs'];
type Spec = CloneSetObject['spec'];

export interface CloneSetOptions {
  replicas?: number;
  image?: string;
  updateStrategy?: Spec['updateStrategy'];
  minReadySeconds?: number;
  lifecycle?: Spec['lifecycle'];
  controlled?: boolean;
  podsToDelete?: string[];
  withClaims?: boolean;
}

export function cloneSet(o: CloneSetOptions = {}): CloneSetObject {
  const labels: Record<string, string> = { app: 'web', ...(o.controlled ? { 'kusionstack.io/control': 'true' } : {}) };
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'web', namespace: 'prod', uid: UID, generation: 1 },
    spec: {
      replicas: o.replicas ?? 4,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels }, spec: { containers: [{ name: 'main', image: o.image ?? 'web:1' }] } },
      updateStrategy: o.updateStrategy,
      ...(o.minReadySeconds ? { minReadySeconds: o.minReadySeconds } : {}),
      lifecycle: o.lifecycle,
      ...(o.podsToDelete ? { scaleStrategy: { podsToDelete: o.podsToDelete } } : {}),
      ...(o.withClaims ? { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] } : {}),
    },
    status: { observedGeneration: 1 },
  };
}

/** The revision the controller makes of this CloneSet's template. */
export function revisionOf(cs: CloneSetObject, number = 1): V1ControllerRevision {
  const plan = planReconcile(inputOf(cs, [], []));
  return { ...plan.revisions.updateRevision, revision: number };
}

export interface PodOptions {
  revision: string;
  /** Seconds ago the pod was created (the default update order takes newer pods first). */
  createdSecondsAgo?: number;
  ready?: boolean;
  readyForSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  controlled?: boolean;
  deleting?: boolean;
  ownerUid?: string;
}

const ago = (seconds: number): string => new Date(NOW - seconds * 1000).toISOString();

export function pod(name: string, o: PodOptions): V1Pod {
  const ready = o.ready ?? true;
  const created = o.createdSecondsAgo ?? 3600;
  return {
    metadata: {
      name,
      namespace: 'prod',
      uid: `uid-${name}`,
      labels: {
        app: 'web',
        'apps.kruise.io/cloneset-instance-id': name.slice(name.lastIndexOf('-') + 1),
        'controller-revision-hash': o.revision,
        'pod-template-hash': o.revision.slice(o.revision.lastIndexOf('-') + 1),
        'lifecycle.apps.kruise.io/state': 'Normal',
        ...(o.controlled ? { 'kusionstack.io/control': 'true', 'podopslifecycle.kusionstack.io/service-available': 'true' } : {}),
        ...o.labels,
      },
      annotations: o.annotations,
      finalizers: o.finalizers,
      ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid: o.ownerUid ?? UID, controller: true }],
      creationTimestamp: ago(created) as unknown as Date,
      ...(o.deleting ? { deletionTimestamp: ago(5) as unknown as Date } : {}),
    },
    spec: { nodeName: 'node-1', containers: [{ name: 'main', image: 'web:1' }], readinessGates: [{ conditionType: 'InPlaceUpdateReady' }] },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: ago(o.readyForSeconds ?? created) as unknown as Date },
        { type: 'InPlaceUpdateReady', status: 'True' },
      ],
      containerStatuses: [{ name: 'main', image: 'web:1', imageID: 'web@sha256:1', ready, restartCount: 0 }],
    },
  };
}

/** A seeded random source: new instance ids differ, and the same on every run. */
function seeded(seed = 1): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

export function inputOf(cs: CloneSetObject, pods: V1Pod[], revisions: V1ControllerRevision[], extra: Partial<ReconcileInput> = {}): ReconcileInput {
  return {
    cs,
    pods,
    pvcs: [],
    revisions,
    gates: { ...FEATURE_GATE_DEFAULTS },
    nowMs: NOW,
    random: seeded(),
    ...extra,
  };
}

/**
 * A rollout under way: `pods` of the CloneSet at web:1 (the current revision), the template now
 * at web:2 (the update revision). Pod i was created i minutes after the first, so the default
 * update order takes the highest index first.
 */
export interface Rollout {
  cs: CloneSetObject;
  pods: V1Pod[];
  revisions: V1ControllerRevision[];
  current: string;
  update: string;
  input: (extra?: Partial<ReconcileInput>) => ReconcileInput;
}

export function rollout(o: CloneSetOptions & { count?: number; pod?: (i: number) => Partial<PodOptions> } = {}): Rollout {
  const old = cloneSet({ ...o, image: 'web:1' });
  const current = revisionOf(old, 1);
  const cs = cloneSet({ ...o, image: 'web:2' });
  const update = revisionOf(cs, 2);
  const currentName = current.metadata!.name!;
  cs.status = { ...cs.status, currentRevision: currentName, updateRevision: update.metadata!.name!, replicas: o.count ?? 4, updatedReplicas: 0, readyReplicas: o.count ?? 4, availableReplicas: o.count ?? 4 };
  const pods = Array.from({ length: o.count ?? 4 }, (_, i) => pod(`web-p${i}`, { revision: currentName, createdSecondsAgo: 3600 - 60 * i, controlled: o.controlled, ...o.pod?.(i) }));
  return { cs, pods, revisions: [current, update], current: currentName, update: update.metadata!.name!, input: (extra: Partial<ReconcileInput> = {}) => inputOf(cs, pods, [current, update], extra) };
}
