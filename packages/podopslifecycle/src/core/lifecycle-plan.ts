// The lifecycle controller's decision (as Kuperator's PodOpsLifecycle controller makes it) for one controlled pod, as typed data: at most
// one write per reconcile (the write's own watch event brings the next step), plus Events.
import type { V1PodCondition } from '@kubernetes/client-node';
import { KUSION_CONTROL_LABEL, POL_LABELS, POL_PHASE_LABEL, POL_PREFIXES, POL_SERVICE_READY_GATE, POL_SERVICE_READY_MESSAGE, isKusionControlled } from '@cloneset-suite/api-types';
import { availableConditionsWithout, dirtyExpectedFinalizerKeys, type ServiceSelectorLookup } from './dirty-finalizers.ts';
import { effectiveChanges, isEmpty, type LabelChanges } from './label-patch.ts';
import { mutatePod } from './mutate.ts';
import type { PlannedEvent } from './planned-event.ts';
import { condition, expectedFinalizersSatisfied, hasServiceReadyGate, isPodReady, type Pod } from './pod-state.ts';
import { keyOf, readLifecycle, type LifecycleView } from './protocol.ts';
import type { LifecycleStage, StageDecision } from './stage-gate.ts';
import { validatePod, violationMessage } from './validate.ts';

export type LifecycleWrite =
  /** A label change (JSON patch guarded by resourceVersion). */
  | { kind: 'patchLabels'; changes: LabelChanges }
  /** The service-ready condition through pods/status; `appended` when the pod had none. */
  | { kind: 'setServiceReady'; status: 'True' | 'False'; appended: boolean }
  /** The available-conditions annotation rewritten without its dirty entries. */
  | { kind: 'setAvailableConditions'; value: string; dropped: string[] }
  /**
   * An empty write so the mutating webhook runs again: some transitions (the final clean-up once
   * every id completes, the barrier after an undo) happen only on a later write, which may never come.
   */
  | { kind: 'touch' };

export interface LifecyclePlan {
  write?: LifecycleWrite;
  events: PlannedEvent[];
  /** Why the plan is what it is (debug log). */
  why: string;
}

export interface LifecyclePlanInput {
  pod: Pod;
  /** The StageGate's answer for this pod. */
  gate: (stage: LifecycleStage) => StageDecision;
  /** Unix-nanosecond timestamp for new labels. */
  now: string;
  /** Services' selectors, to find dirty expected finalizers; none are dirty without it. */
  serviceSelector?: ServiceSelectorLookup;
}

const plan = (why: string, write?: LifecycleWrite, events: PlannedEvent[] = []): LifecyclePlan => ({ write, events, why });

export function planLifecycle({ pod, gate, now, serviceSelector }: LifecyclePlanInput): LifecyclePlan {
  if (pod.metadata?.deletionTimestamp) return plan('pod is being deleted');
  if (!isKusionControlled(pod.metadata?.labels)) return planReleased(pod);
  // A pod the validating webhook refuses cannot be written: say so once and wait for a fix.
  const violations = validatePod(pod);
  if (violations.length > 0) {
    return plan('pod breaks the label protocol', undefined, [
      { type: 'Warning', reason: 'InvalidLifecycle', action: 'Validate', note: violationMessage(violations) },
    ]);
  }
  const labels = pod.metadata?.labels ?? {};
  const view = readLifecycle(labels);

  // Step 2: a pod in no lifecycle goes (back) online.
  if (view.ids.length === 0 && labels[POL_LABELS.stayOffline] === undefined) {
    const dirty = labels[POL_LABELS.serviceAvailable] === undefined && !expectedFinalizersSatisfied(pod) && serviceSelector ? dirtyExpectedFinalizerKeys(pod, serviceSelector) : [];
    if (dirty.length > 0) {
      return plan(`expected finalizers of gone or non-selecting Services: ${dirty.join(', ')}`, { kind: 'setAvailableConditions', value: availableConditionsWithout(pod, dirty), dropped: dirty }, [
        { type: 'Normal', reason: 'ExpectedFinalizersCleaned', action: 'Update', note: `dropped expected finalizers of Services that are gone or no longer select the pod: ${dirty.join(', ')}` },
      ]);
    }
    if (labels[POL_LABELS.serviceAvailable] === undefined && expectedFinalizersSatisfied(pod) && isPodReady(pod)) {
      const changes = effectiveChanges(labels, { set: { [POL_LABELS.serviceAvailable]: now }, remove: [POL_LABELS.creating, POL_LABELS.completing] });
      return plan('no lifecycle, Ready and expected finalizers present: service-available', { kind: 'patchLabels', changes });
    }
    const ready = serviceReadyWrite(pod, 'True');
    if (ready) return plan('no lifecycle: service-ready True', ready);
  }

  // Step 3: PreCheck / PostCheck approval from the StageGate (per pod, every id at once).
  const stage = currentStage(view);
  if (stage) {
    const decision = gate(stage);
    if (decision.passed) {
      const changes = effectiveChanges(labels, stage === 'PreCheck' ? preCheckGrant(view, now) : postCheckGrant(view, now));
      if (!isEmpty(changes)) return plan(`${stage} passed`, { kind: 'patchLabels', changes });
    } else {
      return finishWith(pod, view, `${stage} not passed: ${decision.message}`);
    }
  }
  return finishWith(pod, view, 'nothing to grant');
}

/**
 * A pod whose `kusionstack.io/control` label was removed has left PodOpsLifecycle: nothing will
 * move its lifecycle on, so a service-ready condition left False (or never set) would keep it
 * NotReady for good. The condition goes True; the lifecycle labels stay, and resume if the
 * label comes back.
 */
function planReleased(pod: Pod): LifecyclePlan {
  const write = serviceReadyWrite(pod, 'True');
  if (!write) return plan('not controlled');
  const ids = readLifecycle(pod.metadata?.labels).ids;
  const during = ids.length > 0 ? ` during lifecycle ${ids.join(', ')} (its labels stay, and move on if the label comes back)` : '';
  return plan('not controlled any more: service-ready True', write, [
    {
      type: 'Warning',
      reason: 'ControlLabelRemoved',
      action: 'UpdateStatus',
      note: `${KUSION_CONTROL_LABEL} is no longer "true"${during}: PodOpsLifecycle releases the pod and sets ${POL_SERVICE_READY_GATE} True`,
    },
  ]);
}

/** Steps 4-5 and the final-cleanup nudge. */
function finishWith(pod: Pod, view: LifecycleView, why: string): LifecyclePlan {
  const labels = pod.metadata?.labels ?? {};
  // An id in Preparing or Operate keeps traffic off, even while another id completes.
  const anyPreparing = view.ids.some((id) => view.labelsById.get(id)?.preparing !== undefined || view.labelsById.get(id)?.operate !== undefined);
  const anyCompleting = view.ids.some((id) => view.labelsById.get(id)?.completing !== undefined);
  // Step 4: preparing wins over completing (Kuperator issue #248); so does an operation in progress.
  const desired = anyPreparing ? 'False' : anyCompleting ? 'True' : undefined;
  const gateWrite = desired ? serviceReadyWrite(pod, desired) : undefined;
  if (gateWrite) return plan(`${why}; ${anyPreparing ? 'preparing' : 'completing'}: service-ready ${desired}`, gateWrite);
  // Step 5.
  if (!isPodReady(pod) && labels[POL_LABELS.serviceAvailable] !== undefined) {
    return plan(`${why}; not Ready: service-available removed`, { kind: 'patchLabels', changes: { set: {}, remove: [POL_LABELS.serviceAvailable] } });
  }
  // Some transitions happen only on a later write (the webhook's final clean-up, and the barrier
  // after an undo); with nothing else to write, an empty one lets the webhook make them.
  if (webhookWouldMove(pod)) return plan(`${why}; the webhook has a transition pending: nudge it`, { kind: 'touch' });
  return plan(why);
}

/**
 * Whether the mutating webhook would change a lifecycle label on the pod's next write (the phase
 * label alone is worth no write); this includes rewriting an `operate` value that is no timestamp.
 */
function webhookWouldMove(pod: Pod): boolean {
  const labels = pod.metadata?.labels ?? {};
  const after = mutatePod(pod, pod, 'UPDATE', '0').metadata?.labels ?? {};
  const keys = new Set([...Object.keys(labels), ...Object.keys(after)]);
  keys.delete(POL_PHASE_LABEL);
  return [...keys].some((k) => labels[k] !== after[k]);
}

/** Deterministic stage: PreCheck before PostCheck (Kuperator picks one arbitrarily). */
function currentStage(view: LifecycleView): LifecycleStage | undefined {
  const of = (id: string) => view.labelsById.get(id) ?? {};
  if (view.ids.some((id) => of(id).preCheck !== undefined)) return 'PreCheck';
  if (view.ids.some((id) => of(id).postCheck !== undefined)) return 'PostCheck';
  return undefined;
}

function preCheckGrant(view: LifecycleView, now: string): LabelChanges {
  const set: Record<string, string> = {};
  for (const id of view.ids) {
    const l = view.labelsById.get(id) ?? {};
    if (l.operating === undefined || l.operationType === undefined) continue;
    if (l.preChecked === undefined) set[keyOf('preChecked', id)] = now;
    const permission = `${POL_PREFIXES.operationPermission}/${l.operationType}`;
    if (!view.permissions.has(l.operationType)) set[permission] = now;
  }
  return { set, remove: [] };
}

function postCheckGrant(view: LifecycleView, now: string): LabelChanges {
  const set: Record<string, string> = {};
  for (const id of view.ids) {
    const l = view.labelsById.get(id) ?? {};
    if (l.operated !== undefined && l.postChecked === undefined) set[keyOf('postChecked', id)] = now;
  }
  return { set, remove: [] };
}

/** The condition write that makes service-ready `status`, if the pod has the gate and needs it. */
function serviceReadyWrite(pod: Pod, status: 'True' | 'False'): LifecycleWrite | undefined {
  if (!hasServiceReadyGate(pod)) return undefined;
  const current = condition(pod, POL_SERVICE_READY_GATE);
  if (current?.status === status) return undefined;
  return { kind: 'setServiceReady', status, appended: current === undefined };
}

/** The pods/status JSON patch operations that write the condition (lastTransitionTime = now). */
export function serviceReadyPatchOps(pod: Pod, status: 'True' | 'False', nowIso: string): { op: 'add' | 'replace'; path: string; value: unknown }[] {
  const value: V1PodCondition = { type: POL_SERVICE_READY_GATE, status, message: POL_SERVICE_READY_MESSAGE, lastTransitionTime: nowIso as unknown as Date };
  const conditions = pod.status?.conditions;
  if (!conditions) return [{ op: 'add', path: '/status/conditions', value: [value] }];
  const index = conditions.findIndex((c) => c.type === POL_SERVICE_READY_GATE);
  if (index === -1) return [{ op: 'add', path: '/status/conditions/-', value }];
  return [{ op: 'replace', path: `/status/conditions/${index}`, value }];
}

/** The ServiceReady Event, as Kuperator's lifecycle controller emits it. */
export function serviceReadyEvent(write: Extract<LifecycleWrite, { kind: 'setServiceReady' }>): PlannedEvent {
  const verb = write.appended ? 'append' : 'update';
  return { type: 'Normal', reason: 'ServiceReady', action: 'UpdateStatus', note: `${verb} service readiness gate to: ${write.status}` };
}
