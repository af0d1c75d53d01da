// The PodsHeld condition and its Events: pods a lifecycle hook or a PodTransitionRule
// holds are an ordinary wait, not a failure. OpenKruise sets FailedScale/FailedUpdate only when an
// API call fails and says nothing while a hook holds a pod, so an alert on Failed* must not fire
// because a hook takes its time; a wait that goes on too long is what progressDeadlineSeconds (the
// Progressing condition) reports. This condition says who holds which pods meanwhile.
import type { EventAction } from '../plan.ts';
import type { StatusCondition } from '../types.ts';
import { HOLD_REASONS, type Hold } from '../wait.ts';
import { waitEvent } from '../waits/wait-events.ts';
import { waitMessage } from '../waits/wait-text.ts';

export const PODS_HELD_CONDITION = 'PodsHeld';

export interface HeldConditionState {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/**
 * The condition for this pass: True naming every hold (reason: the first hold's kind), False once
 * nothing is held if it was True, and no change when the pass did not look (`holds` undefined) or
 * nothing was ever held.
 */
export function heldCondition(holds: readonly Hold[] | undefined, existing: StatusCondition | undefined): HeldConditionState | undefined {
  if (holds === undefined) return undefined;
  if (holds.length > 0) return { status: 'True', reason: HOLD_REASONS[holds[0]!.kind], message: holds.map(waitMessage).join('; ') };
  if (existing?.status === 'True') return { status: 'False', reason: 'Released', message: 'no pod is held by a lifecycle hook, a PodTransitionRule or a changed operation-type label' };
  return undefined;
}

/**
 * A Normal Event for each hold the condition does not say yet (a new hold, or other pods held):
 * once when the wait begins or changes, not on every pass while it lasts.
 */
export function holdEvents(holds: readonly Hold[], existing: StatusCondition | undefined): EventAction[] {
  // A hold's message ends with what holds the pods and their names, so it appears in the joined
  // condition message only if that very hold was said (a rule's reason may itself contain "; ").
  const said = existing?.status === 'True' ? (existing.message ?? '') : '';
  return holds.filter((h) => !said.includes(waitMessage(h))).flatMap((h) => waitEvent(h) ?? []);
}
