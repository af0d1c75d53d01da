// Pod/CloneSet builders shared by the unit tests.
import { conditionOf, type Wait } from '../../src/core/wait.ts';
import { waitMessage } from '../../src/core/waits/wait-text.ts';
import type { V1Pod } from '@kubernetes/client-node';
import { INPLACE_UPDATE_READY, INSTANCE_ID_LABEL, LIFECYCLE_STATE_LABEL, REVISION_LABEL, SPECIFIED_DELETE_LABEL } from '../../src/core/keys.ts';
import type { CloneSetLike, CloneSetSpecLike } from '../../src/core/types.ts';
import { seededRandom } from '@cloneset-suite/local-cluster';

export const NOW = Date.parse('2026-01-01T00:10:00Z');
export const CS_UID = 'uid-cs';

export interface PodOpts {
  name?: string;
  rev?: string;
  ready?: boolean;
  phase?: string;
  readySinceSec?: number; // seconds before NOW
  state?: string;
  sd?: boolean;
  node?: string;
  id?: string;
  ipuReady?: boolean;
  deleting?: boolean;
  createdSec?: number; // seconds before NOW
  restarts?: number;
  cost?: number;
  labels?: Record<string, string>;
  owner?: 'controller' | 'ref' | 'none' | 'other';
}

let seq = 0;
export function pod(o: PodOpts = {}): V1Pod {
  const id = o.id ?? `p${seq++}`;
  const name = o.name ?? `cs-${id}`;
  const labels: Record<string, string> = { app: 'demo', [INSTANCE_ID_LABEL]: id, ...(o.labels ?? {}) };
  if (o.rev !== undefined) labels[REVISION_LABEL] = o.rev;
  if (o.state !== undefined) labels[LIFECYCLE_STATE_LABEL] = o.state;
  if (o.sd) labels[SPECIFIED_DELETE_LABEL] = 'true';
  const ready = o.ready ?? true;
  const owner = o.owner ?? 'controller';
  const ownerReferences =
    owner === 'none'
      ? []
      : [
          {
            apiVersion: 'apps.kruise.io/v1alpha1',
            kind: 'CloneSet',
            name: 'cs',
            uid: owner === 'other' ? 'uid-other' : CS_UID,
            controller: owner !== 'ref',
          },
        ];
  const conditions = [
    {
      type: 'Ready',
      status: ready ? 'True' : 'False',
      lastTransitionTime: new Date(NOW - (o.readySinceSec ?? 3600) * 1000),
    },
  ];
  if (o.ipuReady !== undefined) conditions.push({ type: INPLACE_UPDATE_READY, status: o.ipuReady ? 'True' : 'False', lastTransitionTime: new Date(NOW) });
  return {
    metadata: {
      name,
      namespace: 'ns',
      labels,
      annotations: o.cost !== undefined ? { 'controller.kubernetes.io/pod-deletion-cost': String(o.cost) } : {},
      ownerReferences,
      creationTimestamp: new Date(NOW - (o.createdSec ?? 7200) * 1000),
      ...(o.deleting ? { deletionTimestamp: new Date(NOW) } : {}),
    },
    spec: { containers: [{ name: 'main', image: 'nginx:1' }], ...(o.node === '' ? {} : { nodeName: o.node ?? 'node-a' }) },
    status: {
      phase: o.phase ?? 'Running',
      conditions,
      containerStatuses: [
        { name: 'main', image: 'nginx:1', imageID: 'sha-1', ready, restartCount: o.restarts ?? 0 },
      ],
    },
  };
}

export function cloneSet(spec: Partial<CloneSetSpecLike> = {}, extra: Partial<CloneSetLike> = {}): CloneSetLike {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'cs', namespace: 'ns', uid: CS_UID, generation: 1, ...(extra.metadata ?? {}) },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'demo' } },
      template: {
        metadata: { labels: { app: 'demo' } },
        spec: { containers: [{ name: 'main', image: 'nginx:1' }] },
      },
      ...spec,
    },
    status: extra.status ?? {},
  };
}

/** Deterministic ids in tests: the suite's one seeded generator. */
export { seededRandom };

// ---- plan contexts ----
import type { V1ControllerRevision, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { buildContext, revisionNameOf, type PlanContext } from '../../src/core/context.ts';
import { planReconcile, type ReconcilePlan } from '../../src/core/reconcile-plan.ts';
import { revisionData } from '../../src/core/revisions/revisions.ts';
import type { FeatureGates } from '../../src/core/keys.ts';

export function templateWithImage(image: string, extra: Record<string, unknown> = {}) {
  return {
    metadata: { labels: { app: 'demo' } },
    spec: { containers: [{ name: 'main', image, ...extra }] },
  };
}

export function revision(name: string, n: number, template: unknown): V1ControllerRevision {
  return {
    metadata: { name, ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs', uid: CS_UID, controller: true }] },
    revision: n,
    data: revisionData(template as never),
  };
}

export interface CtxOpts {
  gates?: FeatureGates;
  pvcs?: V1PersistentVolumeClaim[];
  inactive?: V1Pod[];
  oldTemplate?: unknown;
  seed?: number;
  now?: number;
  nodeLabels?: Map<string, Record<string, string>>;
  podNamed?: (name: string) => V1Pod | undefined;
}

/** Context with revisions cs-old (nginx:0) as current and cs-new (the spec template) as update. */
export function ctxFor(cs: CloneSetLike, pods: V1Pod[], o: CtxOpts = {}): PlanContext {
  const oldRev = revision('cs-old', 1, o.oldTemplate ?? templateWithImage('nginx:0'));
  const newRev = revision('cs-new', 2, cs.spec.template);
  return buildContext({
    cs,
    gates: o.gates ?? {},
    nowMs: o.now ?? NOW,
    random: seededRandom(o.seed ?? 1),
    pods,
    allPods: [...pods, ...(o.inactive ?? [])],
    pvcs: o.pvcs ?? [],
    revisions: [oldRev, newRev],
    currentRevision: oldRev,
    updateRevision: newRev,
    ...(o.nodeLabels ? { nodeLabels: (node: string) => o.nodeLabels?.get(node) } : {}),
    podNamed: o.podNamed,
  });
}

/** One reconcile pass over revisions cs-old (nginx:0) and cs-new (the spec template), as ctxFor sets them. */
export function reconcileWith(cs: CloneSetLike, pods: V1Pod[]): ReconcilePlan {
  return planReconcile({
    cs,
    pods,
    pvcs: [],
    revisions: [revision('cs-old', 1, templateWithImage('nginx:0')), revision('cs-new', 2, cs.spec.template)],
    gates: {},
    nowMs: NOW,
    random: seededRandom(1),
  });
}

export function pvc(name: string, id: string): V1PersistentVolumeClaim {
  return {
    metadata: { name, labels: { app: 'demo', 'apps.kruise.io/cloneset-instance-id': id }, ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs', uid: CS_UID, controller: true }] },
    spec: {},
  };
}

/**
 * `n` ready pods at the revision a CloneSet of this template hashes to (found by planning once),
 * with that revision: a settled CloneSet, whose pass plans no write.
 */
export function settledPods(n: number): { pods: V1Pod[]; revisions: V1ControllerRevision[] } {
  const first = planReconcile({ cs: cloneSet({ replicas: 1 }), pods: [], pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(11) });
  const rev = revisionNameOf(first.revisions.updateRevision);
  const pods = Array.from({ length: n }, (_, i) => pod({ id: `i${i}`, rev, labels: { 'pod-template-hash': rev.slice(rev.lastIndexOf('-') + 1) } }));
  return { pods, revisions: [first.revisions.updateRevision] };
}

/** The waits said on FailedScale or FailedUpdate, as the condition says them. */
export function onConditions(waits: readonly Wait[]): { condition: string; message: string }[] {
  return waits.flatMap((w) => {
    const condition = conditionOf(w);
    return condition && condition !== 'PodsHeld' ? [{ condition, message: waitMessage(w) }] : [];
  });
}
