// The planner's actions as an operator reads them: one line per pod (or revision, claim, job)
// with what happens to it and why. A recreate is one line (the specified-delete mark and the
// delete that follows it); the pod status writes that come with an update are folded into it;
// Events the pass records are left out (the waits say the same).
import { KRUISE_LABELS } from '@cloneset-suite/api-types';
import type { ReconcileInput, ReconcilePlan } from '@cloneset-suite/cloneset-controller';
import type { V1Pod } from '@kubernetes/client-node';
import { atRevision } from './pod-revision.ts';

type PlannedAction = ReconcilePlan['actions'][number];
type ContainerResources = Extract<PlannedAction, { kind: 'resizePod' }>['containers'][string];

export type ActionKind =
  | 'create'
  | 'delete'
  | 'recreate'
  | 'updateInPlace'
  | 'resize'
  | 'beginOperation'
  | 'finishOperation'
  | 'undoOperation'
  | 'setLifecycleState'
  | 'patchPod'
  | 'setPodConditions'
  | 'releasePod'
  | 'adoptPod'
  | 'createRevision'
  | 'updateRevision'
  | 'deleteRevision'
  | 'updatePodsToDelete'
  | 'deletePvc'
  | 'reownPvc'
  | 'createImagePullJob'
  | 'deleteImagePullJobs'
  | 'labelRevision';

export interface ReportAction {
  action: ActionKind;
  /** The pod acted on; absent for a new pod whose instance id the controller draws itself. */
  pod?: string;
  /** Anything else acted on, as `<resource>/<name>`. */
  object?: string;
  /** The revision a pod is created at or moved to. */
  revision?: string;
  reason: string;
}

/** The numbers the reasons quote, from the pass's input and plan. */
interface Setting {
  replicas: number;
  pods: number;
  maxSurge: number;
  surge: number;
  podsToDelete: ReadonlySet<string>;
  podsByName: ReadonlyMap<string, V1Pod>;
  reusableIds: ReadonlySet<string>;
  recreated: ReadonlySet<string>;
  resized: ReadonlySet<string>;
}

function settingOf(input: ReconcileInput, plan: ReconcilePlan): Setting {
  const scaleDiffs = plan.sync.step === 'none' ? undefined : plan.sync.scaleDiffs;
  const activePodIds = new Set(plan.context.pods.map((p) => p.metadata?.labels?.[KRUISE_LABELS.cloneSetInstanceId]));
  return {
    replicas: plan.context.knobs.replicas,
    pods: plan.context.pods.length,
    maxSurge: plan.context.knobs.maxSurge,
    surge: scaleDiffs?.useSurge ?? 0,
    podsToDelete: plan.context.podsToDelete,
    podsByName: new Map(input.pods.map((p) => [p.metadata?.name ?? '', p])),
    // Claims of an instance id no active pod has: a new pod takes one of these ids first.
    reusableIds: new Set(
      input.pvcs.map((c) => c.metadata?.labels?.[KRUISE_LABELS.cloneSetInstanceId]).filter((id): id is string => id !== undefined && !activePodIds.has(id)),
    ),
    recreated: new Set(plan.actions.flatMap((a) => (a.kind === 'patchPod' && a.reason === 'RecreateUpdate' ? [a.name] : []))),
    resized: new Set(plan.actions.flatMap((a) => (a.kind === 'resizePod' ? [a.name] : []))),
  };
}

/** `main: requests cpu=200m memory=128Mi, limits cpu=400m; side: ...` */
function resources(containers: Record<string, ContainerResources>): string {
  const list = (m: Record<string, string> | undefined) => Object.entries(m ?? {}).map(([k, v]) => `${k}=${v}`).join(' ');
  return Object.entries(containers)
    .map(([name, r]) => `${name}: ${[r.requests ? `requests ${list(r.requests)}` : '', r.limits ? `limits ${list(r.limits)}` : ''].filter(Boolean).join(', ')}`)
    .join('; ');
}

function images(record: Record<string, string>): string {
  return Object.entries(record)
    .map(([container, image]) => `${container}=${image}`)
    .join(', ');
}

const HOOK_OF_STATE: Record<string, string> = {
  PreparingUpdate: 'held by lifecycle hook inPlaceUpdate until its owner releases it, then updated',
  PreparingDelete: 'held by lifecycle hook preDelete until its owner releases it, then deleted',
  PreparingNormal: 'no longer to be deleted',
  Normal: 'settled',
  Updated: 'in-place update done; lifecycle hook inPlaceUpdate still to be released',
};

const PATCH_REASONS: Record<string, string> = {
  BackfillTemplateHash: `add the ${KRUISE_LABELS.podTemplateHash} label`,
  DropInPlaceGrace: 'drop the pending in-place update whose revision is no longer wanted',
  DropMalformedAnnotation: 'remove an in-place update annotation that is not valid',
  LifecycleHookLabels: 'set the lifecycle hook labels',
};

function createReason(s: Setting, instanceId: string): string {
  const why = s.surge > 0 ? `surge for the update (maxSurge ${s.maxSurge})` : `${s.pods} of ${s.replicas} replicas`;
  return s.reusableIds.has(instanceId) ? `${why}; reuses instance id ${instanceId} and its claims` : `${why}; instance id drawn by the controller`;
}

function deleteReason(s: Setting, name: string, reason: string): string {
  if (reason === 'ScaleIn') return `scale in: ${s.pods} pods for ${s.replicas} replicas`;
  if (reason === 'PreDeleteHookReleased') return 'lifecycle hook preDelete released it';
  if (s.podsToDelete.has(name)) return 'listed in spec.scaleStrategy.podsToDelete';
  return `labelled ${KRUISE_LABELS.specifiedDelete}`;
}

/** One action, or none for what the report folds into another line or leaves out. */
function lineOf(a: PlannedAction, s: Setting, podsWithLines: ReadonlySet<string>): ReportAction | undefined {
  switch (a.kind) {
    case 'createPod':
      // A drawn id is the controller's own draw, not this one: only a reused id names the pod.
      return { action: 'create', ...(s.reusableIds.has(a.instanceId) ? { pod: a.name } : {}), revision: a.revision, reason: createReason(s, a.instanceId) };
    case 'deletePod':
      if (s.recreated.has(a.name)) return undefined; // said by its recreate line
      return { action: 'delete', pod: a.name, reason: deleteReason(s, a.name, a.reason) };
    case 'patchPod':
      if (a.reason === 'RecreateUpdate') return undefined; // said by recreateLine
      if (a.lifecycle) return { action: 'setLifecycleState', pod: a.name, reason: `${a.lifecycle.from || '(none)'} -> ${a.lifecycle.to}: ${HOOK_OF_STATE[a.lifecycle.to] ?? 'lifecycle'}` };
      return { action: 'patchPod', pod: a.name, reason: PATCH_REASONS[a.reason] ?? a.reason };
    case 'setPodConditions':
      if (podsWithLines.has(a.name)) return undefined;
      return { action: 'setPodConditions', pod: a.name, reason: a.conditions.map((c) => `${c.type}=${c.status}`).join(', ') };
    case 'inPlaceUpdate': {
      const atTarget = atRevision(s.podsByName.get(a.name), a.revision);
      const what =
        Object.keys(a.images).length > 0
          ? `images ${images(a.images)}`
          : a.gracePeriodSeconds > 0
            ? `images after gracePeriodSeconds ${a.gracePeriodSeconds}`
            : s.resized.has(a.name)
              ? 'the resize above, then the revision and lifecycle labels'
              : 'metadata only';
      return { action: 'updateInPlace', pod: a.name, revision: a.revision, reason: atTarget ? `apply the images held back by the grace period: ${what}` : what };
    }
    case 'resizePod':
      return { action: 'resize', pod: a.name, reason: `in place through pods/resize (no container restarts): ${resources(a.containers)}` };
    case 'beginOperation':
      return { action: 'beginOperation', pod: a.name, reason: `PodOpsLifecycle operation cloneset/${a.type}: PodTransitionRules check it (PreCheck), then the ${a.type} waits for operate` };
    case 'finishOperation':
      return { action: 'finishOperation', pod: a.name, reason: `the ${a.type} is done: finish operation cloneset/${a.type}` };
    case 'undoOperation':
      return { action: 'undoOperation', pod: a.name, reason: `no longer chosen before operate: undo operation cloneset/${a.type}` };
    case 'releasePod':
      return { action: 'releasePod', pod: a.name, reason: 'no longer matches the selector: released, it keeps running' };
    case 'adoptPod':
      return { action: 'adoptPod', pod: a.name, reason: 'matches the selector and names the CloneSet without a controller reference' };
    case 'createRevision':
      return { action: 'createRevision', object: `controllerrevision/${a.revision.metadata?.name ?? ''}`, reason: 'the template has no revision yet' };
    case 'updateRevision':
      return { action: 'updateRevision', object: `controllerrevision/${a.name}`, reason: `the template is back to this revision: it becomes number ${a.revision}` };
    case 'deleteRevision':
      return { action: 'deleteRevision', object: `controllerrevision/${a.name}`, reason: 'beyond revisionHistoryLimit' };
    case 'updatePodsToDelete':
      return { action: 'updatePodsToDelete', reason: `spec.scaleStrategy.podsToDelete keeps only pods that exist: [${a.podsToDelete.join(', ')}]` };
    case 'deletePvc':
      return { action: 'deletePvc', object: `persistentvolumeclaim/${a.name}`, reason: 'disablePVCReuse: no pod has its instance id' };
    case 'reownPvc':
      return { action: 'reownPvc', object: `persistentvolumeclaim/${a.name}`, reason: 'disablePVCReuse: handed to the terminating pod of its instance id, deleted with it' };
    case 'createImagePullJob':
      return { action: 'createImagePullJob', object: `imagepulljob/${a.name}`, reason: `pre-download ${a.image} for container ${a.container}` };
    case 'deleteImagePullJobs':
      return { action: 'deleteImagePullJobs', object: `imagepulljob/${a.names.join(',')}`, reason: 'the rollout is over' };
    case 'labelRevision':
      return { action: 'labelRevision', object: `controllerrevision/${a.name}`, reason: `image pre-download: ${a.reason}` };
    default:
      return undefined; // Events: recorded by the pass, said by the waits
  }
}

function recreateLine(a: PlannedAction & { kind: 'patchPod' }, plan: ReconcilePlan): ReportAction {
  const target = plan.revisions.updateRevision.metadata?.name ?? '';
  const deletedNow = plan.actions.some((d) => d.kind === 'deletePod' && d.name === a.name);
  return {
    action: 'recreate',
    pod: a.name,
    revision: target,
    reason: deletedNow
      ? `marked ${KRUISE_LABELS.specifiedDelete} and deleted; its replacement is created at the update revision`
      : `marked ${KRUISE_LABELS.specifiedDelete}; deleted on a later pass, then created again at the update revision`,
  };
}

/** The pass's actions in the order the controller runs them. */
export function reportActions(input: ReconcileInput, plan: ReconcilePlan): ReportAction[] {
  const s = settingOf(input, plan);
  const podsWithLines = new Set(plan.actions.flatMap((a) => (a.kind !== 'setPodConditions' && a.kind !== 'event' && 'name' in a ? [a.name] : [])));
  const out: ReportAction[] = [];
  for (const a of plan.actions) {
    const line = a.kind === 'patchPod' && a.reason === 'RecreateUpdate' ? recreateLine(a, plan) : lineOf(a, s, podsWithLines);
    if (line) out.push(line);
  }
  return out;
}
