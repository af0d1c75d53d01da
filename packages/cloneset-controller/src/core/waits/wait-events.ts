// The Event a wait is announced by, when it has one (OpenKruise's CloneSet Events, and ours for
// holds): its type, reason, and the wait's own message. Holds are ordinary waits (Normal); the
// controller's own waits are Warnings, as kruise records ScaleUpLimited.
import type { EventAction } from '../plan.ts';
import type { Wait, WaitKind } from '../wait.ts';
import { waitMessage } from './wait-text.ts';

const EVENTS: Readonly<Partial<Record<WaitKind, { type: 'Normal' | 'Warning'; reason: string; prefix?: string }>>> = {
  lifecycleHook: { type: 'Normal', reason: 'WaitingForLifecycleHook' },
  podTransitionRule: { type: 'Normal', reason: 'WaitingForPodTransitionRule' },
  operationTypeLabel: { type: 'Normal', reason: 'WaitingForOperationTypeLabel' },
  terminatingPods: { type: 'Warning', reason: 'WaitingForPodDeletion' },
  instanceIdsExhausted: { type: 'Warning', reason: 'InstanceIdsExhausted' },
  selectorExcludesPods: { type: 'Warning', reason: 'SelectorExcludesCreatedPods' },
  // Said as a failed in-place update, as the other reasons a pod is not updated in place are.
  resizeStalled: { type: 'Warning', reason: 'FailedUpdatePodInPlace', prefix: 'failed to update ' },
  scaleUpLimited: { type: 'Warning', reason: 'ScaleUpLimited' },
};

/** The Event announcing the wait; undefined for a wait no Event says (the debug line and kubectl cloneset do). */
export function waitEvent(wait: Wait): EventAction | undefined {
  const e = EVENTS[wait.kind];
  return e && { kind: 'event', type: e.type, reason: e.reason, message: `${e.prefix ?? ''}${waitMessage(wait)}` };
}
