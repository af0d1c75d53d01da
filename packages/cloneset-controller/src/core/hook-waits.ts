// Pods a lifecycle hook holds (issue #14, "nothing waits silently"): a pod in PreparingDelete or
// PreparingUpdate stays there until whoever owns the hook removes its finalizer or label. The
// controller has nothing to do meanwhile, so without this the CloneSet would show no reason why
// it is short of pods or not updating; the wait goes on the step's condition, naming the hook.
import { LifecycleState } from './keys.ts';
import { isHooked } from './lifecycle.ts';
import type { PlanContext } from './context.ts';
import type { PlanWait } from './plan.ts';
import { lifecycleState, podName } from './pod-state.ts';
import type { Hook } from './types.ts';

const HOOKS = [
  { name: 'preDelete', state: LifecycleState.PreparingDelete, condition: 'FailedScale' },
  { name: 'inPlaceUpdate', state: LifecycleState.PreparingUpdate, condition: 'FailedUpdate' },
] as const;

/** "finalizer a, label k=v": what the hook's owner has to remove. */
function describeHook(hook: Hook): string {
  const parts = [...(hook.finalizersHandler ?? []).map((f) => `finalizer ${f}`), ...Object.entries(hook.labelsHandler ?? {}).map(([k, v]) => `label ${k}=${v}`)];
  return parts.join(', ');
}

export function hookWaits(ctx: PlanContext): PlanWait[] {
  const waits: PlanWait[] = [];
  for (const h of HOOKS) {
    const hook = ctx.cs.spec.lifecycle?.[h.name];
    if (!hook) continue;
    const held = ctx.pods.filter((p) => lifecycleState(p) === h.state && isHooked(p, hook)).map(podName);
    if (held.length === 0) continue;
    waits.push({ condition: h.condition, message: `waiting for lifecycle hook ${h.name} (${describeHook(hook)}) to release pod(s) ${held.join(', ')} held in ${h.state}` });
  }
  return waits;
}
