// The lifecycle mutating webhook (LW) as a pure function (Kuperator's algorithm: the per-id
// steps, the barrier between several ids, and undo): applied to
// every CREATE/UPDATE of a controlled pod, status writes included. Never calls anything.
import { POL_ANNOTATIONS, POL_LABELS, POL_PHASE_LABEL, POL_PREFIXES, POL_SERVICE_READY_GATE } from '@cloneset-suite/api-types';
import { expectedFinalizersSatisfied, isReadyToOperate, type Pod } from './pod-state.ts';
import { isNanoTimestamp, keyOf, podPhase, readLifecycle, typeOf, type IdLabels, type LifecycleView } from './protocol.ts';
import { selectingServices, syncedAvailableConditions, type TrafficService } from './traffic-plan.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE';

/** Per-id prefixes removed by an undo (the well-known per-id list W). */
const UNDO_REMOVES = [
  'operating',
  'operationType',
  'preCheck',
  'preChecked',
  'preparing',
  'operate',
  'operated',
  'doneOperationType',
  'postCheck',
  'postChecked',
  'completing',
  'undoOperationType',
] as const;
/** Per-id prefixes removed once every id has completed (step 6 of advance). */
const CLEANUP_REMOVES = ['operate', 'operated', 'doneOperationType', 'postCheck', 'postChecked', 'completing'] as const;
/**
 * Per-id prefixes of an earlier run that a fresh begin clears (README "PodOpsLifecycle": an id
 * begun again before its previous run completed starts a fresh run). The begin's own
 * `operating` and `operation-type` stay.
 */
const EARLIER_RUN = ['preCheck', 'preChecked', 'preparing', 'operate', 'operated', 'doneOperationType', 'postCheck', 'postChecked', 'completing'] as const;
type EarlierRunPrefix = (typeof EARLIER_RUN)[number];

/** The Services of a new pod's namespace, when the built-in traffic cooperation runs. */
export interface CreateTraffic {
  namespace: string;
  services: readonly TrafficService[];
}

/**
 * Returns the pod as LW admits it: a copy of `pod` with the readiness gate (CREATE), the
 * lifecycle labels moved on and the phase label brought up to date. `now` is the
 * Unix-nanosecond timestamp written into new labels. On CREATE with `traffic`, an
 * expected-finalizer entry per Service selecting the pod (as ResourceConsist's own webhook does),
 * so the pod cannot become service-available before its traffic is on.
 */
export function mutatePod(oldPod: Pod | undefined, pod: Pod, operation: AdmissionOperation, now: string, traffic?: CreateTraffic): Pod {
  const out: Pod = { ...pod, metadata: { ...pod.metadata } };
  if (operation === 'CREATE') ensureGate(out);
  const labels: Record<string, string> = { ...(pod.metadata?.labels ?? {}) };
  advance(labels, oldPod?.metadata?.labels, pod, now);
  labels[POL_PHASE_LABEL] = podPhase(labels);
  out.metadata!.labels = labels;
  if (operation === 'CREATE' && traffic) addTrafficEntries(out, traffic);
  return out;
}

function addTrafficEntries(pod: Pod, traffic: CreateTraffic): void {
  const value = syncedAvailableConditions(pod, traffic.namespace, selectingServices(pod, traffic.services));
  if (value !== undefined) pod.metadata = { ...pod.metadata, annotations: { ...pod.metadata?.annotations, [POL_ANNOTATIONS.availableConditions]: value } };
}

function ensureGate(pod: Pod): void {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.some((g) => g.conditionType === POL_SERVICE_READY_GATE)) return;
  pod.spec = { ...pod.spec!, readinessGates: [...gates, { conditionType: POL_SERVICE_READY_GATE }] };
}

/**
 * The labels of an earlier run that this write's begin clears, per id begun again: the write adds
 * `operating/<id>` (the old pod had none) and asks for no undo. Only labels the old pod carried,
 * with the value it carried: a label the write itself sets (a tool restoring a pod's lifecycle
 * state, a test setting one up) is the new run's, and stays, as Kuperator keeps it. Only an
 * UPDATE can tell: a create has no previous run.
 */
function earlierRuns(snapshot: LifecycleView, labels: Readonly<Record<string, string>>, oldLabels: Readonly<Record<string, string>> | undefined): Map<string, EarlierRunPrefix[]> {
  const out = new Map<string, EarlierRunPrefix[]>();
  if (oldLabels === undefined) return out;
  for (const id of snapshot.ids) {
    const l = snapshot.labelsById.get(id) ?? {};
    if (l.operating === undefined || l.undoOperationType !== undefined || oldLabels[keyOf('operating', id)] !== undefined) continue;
    const carried = EARLIER_RUN.filter((p) => {
      const key = keyOf(p, id);
      return oldLabels[key] !== undefined && labels[key] === oldLabels[key];
    });
    if (carried.length > 0) out.set(id, carried);
  }
  return out;
}

/** Kuperator's webhook steps 2-8 on `labels` (mutated in place). Presence tests read the step-2 snapshot. */
function advance(labels: Record<string, string>, oldLabels: Readonly<Record<string, string>> | undefined, pod: Pod, now: string): void {
  const set = (key: string, value: string): void => {
    labels[key] = value;
  };
  const drop = (key: string): void => {
    delete labels[key];
  };
  // A fresh begin of an id whose earlier run is still on the pod (PostCheck, Completing, or
  // finished at the barrier): that run's labels go, so the new run starts at PreCheck and no
  // label of the old run outlives it. Its type's permission goes with its pre-checked below.
  const before = readLifecycle(labels);
  const fresh = earlierRuns(before, labels, oldLabels);
  for (const [id, carried] of fresh) for (const p of carried) drop(keyOf(p, id));
  // A hand-written operate value that is no timestamp would make operationDelaySeconds
  // meaningless: the operation is granted again from now.
  for (const id of before.ids) {
    const operate = labels[keyOf('operate', id)];
    if (operate !== undefined && !isNanoTimestamp(operate)) set(keyOf('operate', id), now);
  }
  const snapshot = fresh.size > 0 ? readLifecycle(labels) : before;
  const ids = snapshot.ids;

  // An undo label of an id with no operating/operate/operated label (an unknown id) has
  // nothing to undo: its per-id labels are cleared so no orphan stays behind.
  for (const [id, l] of snapshot.labelsById) {
    if (l.undoOperationType !== undefined && !ids.includes(id)) for (const p of UNDO_REMOVES) drop(keyOf(p, id));
  }

  const undoneTypes = new Set<string>();
  let operating = 0;
  let atOperate = 0;
  let operated = 0;
  let completing = 0;
  const readyToOperate = isReadyToOperate(pod);
  for (const id of ids) {
    const l: IdLabels = snapshot.labelsById.get(id) ?? {};
    // Step 3.1: undo.
    if (l.undoOperationType !== undefined) {
      undoneTypes.add(l.undoOperationType);
      for (const p of UNDO_REMOVES) drop(keyOf(p, id));
      continue;
    }
    // Step 3.2: PreCheck -> Preparing -> Operate.
    if (l.operating !== undefined) {
      operating++;
      if (l.preChecked !== undefined) {
        drop(keyOf('preCheck', id));
        if (l.preparing === undefined && l.operate === undefined) {
          drop(POL_LABELS.serviceAvailable);
          set(keyOf('preparing', id), now);
        }
        if (l.operate === undefined && readyToOperate) {
          drop(keyOf('preparing', id));
          set(keyOf('operate', id), now);
        }
      } else if (l.preCheck === undefined) {
        set(keyOf('preCheck', id), now);
      }
    }
    // Step 3.3: PostCheck -> Completing.
    if (l.postChecked !== undefined) {
      drop(keyOf('postCheck', id));
      if (l.completing === undefined) set(keyOf('completing', id), now);
    }
    // Step 3.4: tallies of the snapshot.
    if (l.operate !== undefined || l.operated !== undefined) atOperate++;
    if (l.operated !== undefined) operated++;
    if (l.completing !== undefined) completing++;
  }

  // A fresh run's earlier pre-checked went, so its earlier type counts like an undone one.
  for (const [id, carried] of fresh) {
    const earlierType = oldLabels?.[keyOf('operationType', id)] ?? typeOf(before.labelsById.get(id));
    if (carried.includes('preChecked') && earlierType !== undefined) undoneTypes.add(earlierType);
  }
  // Step 4: an undo takes its type's permission away unless another id of that type still holds
  // pre-checked (the anchors compare counts of ids per type, which keeps a permission nobody holds
  // when the other id is still in PreCheck, and then the validating webhook refuses the write).
  for (const t of undoneTypes) {
    const stillHeld = ids.some((id) => {
      const l = snapshot.labelsById.get(id) ?? {};
      return l.undoOperationType === undefined && typeOf(l) === t && l.preChecked !== undefined;
    });
    if (!stillHeld) drop(`${POL_PREFIXES.operationPermission}/${t}`);
  }
  // Step 5: nothing further while any operation still runs.
  if (operating > 0) return;
  // Step 6: every id completing (trivially so with none): clear, once the expected finalizers are back.
  if (completing === ids.length) {
    if (!expectedFinalizersSatisfied(pod)) return;
    for (const id of ids) for (const p of CLEANUP_REMOVES) drop(keyOf(p, id));
    return;
  }
  // Step 7: the barrier between ids: every id has operate and none operating -> operated. An id
  // already past operate (operated) counts as having it: an id that began while another was in
  // PostCheck/Completing would otherwise wait at the barrier forever (found by the model test).
  if (atOperate === ids.length) {
    // No id keeps pre-checked past this point, so no permission may stay either (the validating webhook
    // refuses pre-checked without a permission, and the reverse):
    // the anchors drop each finished id's type; a permission of a type nobody holds goes too.
    for (const t of snapshot.permissions.keys()) drop(`${POL_PREFIXES.operationPermission}/${t}`);
    for (const id of ids) {
      const l = snapshot.labelsById.get(id) ?? {};
      drop(keyOf('preChecked', id));
      if (l.operated === undefined) {
        drop(keyOf('operate', id));
        set(keyOf('operated', id), now);
        operated++;
      }
      // The type as the finishing write found it (the old pod's, as Kuperator reads it); a create has no old pod.
      const oldType = oldLabels?.[keyOf('operationType', id)] ?? l.operationType;
      if (oldType !== undefined) {
        drop(keyOf('operationType', id));
        set(keyOf('doneOperationType', id), oldType);
      } else if (l.doneOperationType === undefined && l.operated === undefined) {
        // An id this write moves to operated without a type still gets its pair (operated and
        // done-operation-type go together, or the validating webhook refuses the write),
        // so the transition stays valid. An id the write itself left operated without its
        // done-operation-type gets none: the validating webhook refuses it ("not found label"),
        // as Kuperator's, whose barrier never pairs an id already operated.
        set(keyOf('doneOperationType', id), '');
      }
    }
  }
  // Step 8: every id operated -> PostCheck.
  if (operated === ids.length) {
    for (const id of ids) {
      const l = snapshot.labelsById.get(id) ?? {};
      if (l.postCheck === undefined && l.postChecked === undefined) set(keyOf('postCheck', id), now);
    }
  }
}
