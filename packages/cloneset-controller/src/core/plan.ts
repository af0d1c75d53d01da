// The plan: typed actions the reconciler shell executes in order (planners return data, the
// shell does the I/O: README, Architecture). Outcome events (SuccessfulCreate,
// FailedDelete, ...) are emitted by the shell from each action's result; the plan
// carries events that are decisions (ScaleUpLimited, WaitingForPodDeletion) and, on a
// pod patch, the outcome Events the planner chose the words of (SuccessfulUpdatePodReCreate).
import type { V1ControllerRevision, V1OwnerReference, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import type { LabelSelector } from '@cloneset-suite/api-types';
import type { Wait } from './wait.ts';

export interface CreatePodAction {
  kind: 'createPod';
  name: string;
  instanceId: string;
  /** Revision name the pod is created at. */
  revision: string;
  pod: V1Pod;
  /** Claims to create first when no PVC of that name exists (OpenKruise's PVC handling). A failure aborts the pod. */
  pvcs: V1PersistentVolumeClaim[];
  /**
   * Slow-start batch (OpenKruise's scale-out): batch k holds up to 2^k pods. Run a batch concurrently,
   * start the next only if the whole batch succeeded.
   */
  batch: number;
  /** The /status write right after the create (both readiness gates True). */
  initialConditions: ConditionWrite[];
}

export type DeleteReason = 'ScaleIn' | 'SpecifiedDelete' | 'PreDeleteHookReleased';

export interface DeletePodAction {
  kind: 'deletePod';
  name: string;
  reason: DeleteReason;
  /** Owned PVCs with the pod's instance id, deleted right after the pod (OpenKruise's PVC handling). */
  withPvcs: string[];
}

export interface DeletePvcAction {
  kind: 'deletePvc';
  name: string;
  reason: 'PVCReuseDisabled';
}

/**
 * disablePVCReuse: hand the PVC to the inactive pod with its id so GC removes both (OpenKruise's PVC handling). The
 * CloneSet's entry (at `replaces.index` of the list the plan read) becomes the pod's; the others stay.
 */
export interface ReownPvcAction {
  kind: 'reownPvc';
  name: string;
  ownerReference: V1OwnerReference;
  replaces: { index: number; ownerReference: V1OwnerReference };
}

export type PatchReason =
  | 'Lifecycle'
  | 'BackfillTemplateHash'
  | 'RecreateUpdate'
  | 'DropInPlaceGrace'
  | 'DropMalformedAnnotation'
  | 'LifecycleHookLabels';

/** An Event on the CloneSet (OpenKruise's CloneSet Events). */
export interface OutcomeEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/**
 * Metadata patch of one pod (JSON merge semantics: a null value removes the key).
 * `lifecycle` is informational: the state change the patch carries. `outcome`: the Event the
 * shell records when the write succeeds, or when it fails (the error appended).
 */
export interface PatchPodAction {
  kind: 'patchPod';
  name: string;
  reason: PatchReason;
  labels?: Record<string, string | null>;
  annotations?: Record<string, string | null>;
  addFinalizers?: string[];
  lifecycle?: { from: string; to: string };
  outcome?: { success: OutcomeEvent; failure: OutcomeEvent };
}

/** One condition exactly as the strategic merge patch writes it (null deletes a field). */
export interface ConditionWrite {
  type: string;
  status: 'True' | 'False';
  reason: string | null;
  message: string | null;
  lastTransitionTime: string;
}

export interface PodConditionPatch {
  type: string;
  status: 'True' | 'False';
  reason?: string;
  message?: string;
}

/**
 * Pod status conditions to set in one /status write (OpenKruise's pod refresh; OpenKruise's in-place update; OpenKruise's lifecycle state machine): `conditions` is what
 * the planner decided, `write` the list the shell sends (transition times, PodReady).
 */
export interface SetPodConditionsAction {
  kind: 'setPodConditions';
  name: string;
  conditions: PodConditionPatch[];
  write: ConditionWrite[];
}

/**
 * One in-place update (OpenKruise's in-place update): a single pod update setting labels/annotations
 * and, unless a grace period defers it, the container images.
 */
export interface InPlaceUpdateAction {
  kind: 'inPlaceUpdate';
  name: string;
  revision: string;
  labels: Record<string, string | null>;
  annotations: Record<string, string | null>;
  /** container name -> image, applied now; empty while a grace period defers it. */
  images: Record<string, string>;
  gracePeriodSeconds: number;
}

/** The resources pods/resize changes (update/resize.ts); any other resource change needs a new pod. */
export type Resizable = 'cpu' | 'memory';

/** A container's cpu and memory requests and limits, as written to pods/resize. */
export interface ContainerResources {
  requests?: Partial<Record<Resizable, string>>;
  limits?: Partial<Record<Resizable, string>>;
}

/**
 * An in-place resize through the pods/resize subresource (InPlaceWorkloadVerticalScaling): each
 * container's cpu/memory requests and limits, merged into the pod's spec.
 */
export interface ResizePodAction {
  kind: 'resizePod';
  name: string;
  containers: Record<string, ContainerResources>;
}

export interface ReleasePodAction {
  kind: 'releasePod';
  name: string;
}

export interface AdoptPodAction {
  kind: 'adoptPod';
  name: string;
}

/** Rewrite scaleStrategy.podsToDelete; an empty list removes the field, as OpenKruise omits it. */
export interface UpdatePodsToDeleteAction {
  kind: 'updatePodsToDelete';
  podsToDelete: string[];
}

export interface EventAction {
  kind: 'event';
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/**
 * An Event on one of the CloneSet's pods: a decision about that pod, said where
 * `kubectl describe pod` and `kubectl events --for pod/<name>` show it.
 */
export interface PodEventAction {
  kind: 'podEvent';
  name: string;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/**
 * A PodOpsLifecycle write on a controlled pod (id `cloneset`; README, CloneSet under PodOpsLifecycle): begin when the
 * CloneSet chooses the pod, finish when its in-place update is complete, undo when it leaves
 * the plan before `operate`. The shell writes the SDK's label patch, and with a begin the record
 * of what it began (begun-operation.ts).
 */
export interface OperationAction {
  kind: 'beginOperation' | 'finishOperation' | 'undoOperation';
  name: string;
  type: string;
  /** Begin: the operation deletes the pod, announced with `preparing-to-delete` (Kuperator's operation SDK). */
  deletesPod?: boolean;
}

// ControllerRevision writes (revisions/revisions.ts).
export type RevisionAction =
  /** `data` is the exact text to store (Go's bytes: its hash names the revision). */
  | { kind: 'createRevision'; revision: V1ControllerRevision; data: string }
  | { kind: 'updateRevision'; name: string; revision: number; annotations?: Record<string, string> }
  | { kind: 'deleteRevision'; name: string };

// Image pre-download (predownload/image-predownload.ts).
/** The OpenKruise ImagePullJob (apps.kruise.io/v1alpha1), only the fields we write. */
export interface ImagePullJobManifest {
  apiVersion: 'apps.kruise.io/v1alpha1';
  kind: 'ImagePullJob';
  metadata: {
    name: string;
    namespace?: string;
    labels: Record<string, string>;
    ownerReferences: V1OwnerReference[];
  };
  spec: {
    image: string;
    pullSecrets?: string[];
    /** The nodes of the pods this selects pull the image (mutually exclusive with `selector`). */
    podSelector: LabelSelector;
    parallelism: number;
    pullPolicy: { timeoutSeconds: number; backoffLimit: number };
    completionPolicy: { type: 'Always'; ttlSecondsAfterFinished: number };
  };
}

export interface CreateImagePullJobAction {
  kind: 'createImagePullJob';
  name: string;
  container: string;
  image: string;
  job: ImagePullJobManifest;
}

/**
 * Delete the ImagePullJobs this CloneSet may own (the rollout is over), by name: a job is
 * `<revision>-<container>`, so the names come from the revisions kept, never from a list call.
 */
export interface DeleteImagePullJobsAction {
  kind: 'deleteImagePullJobs';
  /** current == update revision at the time of the plan. */
  revision: string;
  names: string[];
}

export type PreDownloadIgnoreReason = 'ReCreate' | 'TooFewReplicas' | 'OneBatch' | 'NotInPlace';

/** Mark a revision as handled: jobs created, or pre-download skipped (and why). */
export interface LabelRevisionAction {
  kind: 'labelRevision';
  name: string;
  labels: Record<string, string>;
  reason: 'ImagePullJobsCreated' | PreDownloadIgnoreReason;
}

export type PreDownloadAction = CreateImagePullJobAction | DeleteImagePullJobsAction | LabelRevisionAction;

export type PlanAction =
  | CreatePodAction
  | OperationAction
  | DeletePodAction
  | DeletePvcAction
  | ReownPvcAction
  | PatchPodAction
  | SetPodConditionsAction
  | InPlaceUpdateAction
  | ResizePodAction
  | ReleasePodAction
  | AdoptPodAction
  | UpdatePodsToDeleteAction
  | EventAction
  | PodEventAction
  | RevisionAction
  | PreDownloadAction;

export interface PlanError {
  condition: 'FailedScale' | 'FailedUpdate';
  message: string;
}

/** The part of a pass an action belongs to; a failed action fails its step's condition. */
export type PlanStep = 'claim' | 'revisions' | 'preDownload' | 'scale' | 'update' | 'cleanup';

export type PlannedAction = PlanAction & { step: PlanStep };

/** FailedUpdate for the Update step's actions, FailedScale for everything else (OpenKruise's conditions). */
export function failureCondition(step: PlanStep): PlanError['condition'] {
  return step === 'update' ? 'FailedUpdate' : 'FailedScale';
}

export function inStep(step: PlanStep, actions: readonly PlanAction[]): PlannedAction[] {
  return actions.map((a) => ({ ...a, step }));
}

export interface Plan {
  actions: PlanAction[];
  /** True when the step wrote something, so later steps of the pass are skipped. */
  modified: boolean;
  /** Smallest positive delay to requeue after, in milliseconds. */
  requeueAfterMs?: number;
  errors: PlanError[];
  /** What the step waits for (./wait.ts): reported, not retried as an error. */
  waits: Wait[];
  /**
   * Pods the step chose for its PodOpsLifecycle operation type (scale-in or update), whether it
   * begins, waits or acts on them; absent when the step did not get as far as choosing.
   */
  chosen?: ReadonlySet<string>;
}

export function emptyPlan(): Plan {
  return { actions: [], modified: false, errors: [], waits: [] };
}

export function minRequeue(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || a <= 0) return b !== undefined && b > 0 ? b : undefined;
  if (b === undefined || b <= 0) return a;
  return Math.min(a, b);
}
