// Traceability: an Event at each phase change of a lifecycle id, naming the id, its
// type, the label timestamp it entered the phase at and how long the previous phase lasted.
import { POL_LABELS, POL_SERVICE_READY_GATE, parseNanoTimestamp } from '@cloneset-suite/api-types';
import type { PlannedEvent } from './planned-event.ts';
import { hasServiceReadyGate, type Pod } from './pod-state.ts';
import { keyOf, phaseOf, readLifecycle, typeOf, type IdLabels, type IdPhase } from './protocol.ts';

export interface IdObservation {
  phase: IdPhase;
  /** The id's operation type; '' when it has none. */
  type: string;
  /** Unix-nanosecond timestamp (label value) at which the id entered the phase, when known. */
  since?: string;
}

export interface PodObservation {
  ids: Map<string, IdObservation>;
  /** service-available label value, when present. */
  serviceAvailable?: string;
  /** The pod has the service-ready readiness gate (only then can the lifecycle take its traffic off). */
  gate: boolean;
}

/** The label whose timestamp marks the entry into each phase (Kuperator's timing labels). */
function enteredAt(phase: IdPhase, l: IdLabels): string | undefined {
  switch (phase) {
    case 'PreCheck':
      return l.preCheck ?? l.operating;
    case 'Preparing':
      return l.preparing;
    case 'Operating':
    case 'Operated':
      return l.operate;
    case 'PostCheck':
      return l.postCheck ?? l.operated;
    case 'Completing':
      return l.completing;
  }
}

export function observePod(pod: Pod): PodObservation {
  const view = readLifecycle(pod.metadata?.labels);
  const ids = new Map<string, IdObservation>();
  for (const id of view.ids) {
    const l = view.labelsById.get(id) ?? {};
    const phase = phaseOf(l);
    if (!phase) continue;
    const since = enteredAt(phase, l);
    ids.set(id, { phase, type: typeOf(l) ?? '', ...(since ? { since } : {}) });
  }
  const sa = pod.metadata?.labels?.[POL_LABELS.serviceAvailable];
  return { ids, gate: hasServiceReadyGate(pod), ...(view.ids.length === 0 && sa !== undefined ? { serviceAvailable: sa } : {}) };
}

/** Phases that end only by the barrier or an undo: an id vanishing from one of them was undone. */
const UNDOABLE: ReadonlySet<IdPhase> = new Set(['PreCheck', 'Preparing', 'Operating', 'Operated']);

function seconds(from: string | undefined, to: string | undefined): string | undefined {
  const a = parseNanoTimestamp(from);
  const b = parseNanoTimestamp(to);
  if (a === undefined || b === undefined || b < a) return undefined;
  return `${(Number((b - a) / 1_000_000n) / 1000).toFixed(3)}s`;
}

/**
 * Events for what changed between two observations of a pod. Without a previous observation
 * (first sight, e.g. after a restart) nothing is reported: a restart must not replay history.
 */
export function phaseChangeEvents(previous: PodObservation | undefined, current: PodObservation): PlannedEvent[] {
  if (!previous) return [];
  const events: PlannedEvent[] = [];
  for (const [id, now] of current.ids) {
    const before = previous.ids.get(id);
    if (now.phase === 'PreCheck' && now.type === '' && !(before?.phase === 'PreCheck' && before.type === '')) {
      events.push({
        type: 'Warning',
        reason: 'MissingOperationType',
        action: 'Lifecycle',
        note: `lifecycle ${id} waits in PreCheck: it has ${keyOf('operating', id)} but no ${keyOf('operationType', id)}; write the type to let it pass`,
      });
    }
    if (before?.phase === now.phase || now.phase === 'Operated') continue;
    const took = before ? seconds(before.since, now.since) : undefined;
    const after = before && took ? ` after ${took} in ${before.phase}` : '';
    events.push({
      type: 'Normal',
      reason: now.phase,
      action: 'Lifecycle',
      note: `lifecycle ${id} (type ${now.type || 'none'}) entered ${now.phase} at ${now.since ?? 'unknown'}${after}`,
    });
    // Without the gate, service-ready False cannot make the pod NotReady: nothing takes its traffic off.
    if ((now.phase === 'Preparing' || now.phase === 'Operating') && !current.gate && (before === undefined || before.phase === 'PreCheck')) {
      events.push({
        type: 'Warning',
        reason: 'NoServiceReadyGate',
        action: 'Lifecycle',
        note: `lifecycle ${id} is operated with traffic on: the pod has no readiness gate ${POL_SERVICE_READY_GATE} (the webhook adds it when a pod is created with kusionstack.io/control: "true"); re-create the pod to get it`,
      });
    }
  }
  for (const [id, before] of previous.ids) {
    if (current.ids.has(id) || !UNDOABLE.has(before.phase)) continue;
    events.push({ type: 'Normal', reason: 'Undone', action: 'Lifecycle', note: `lifecycle ${id} (type ${before.type}) undone in ${before.phase}` });
  }
  if (current.serviceAvailable !== undefined && previous.serviceAvailable === undefined) {
    events.push({ type: 'Normal', reason: 'ServiceAvailable', action: 'Lifecycle', note: `pod service-available at ${current.serviceAvailable}` });
  }
  return events;
}
