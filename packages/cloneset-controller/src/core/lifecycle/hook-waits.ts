// Pods a lifecycle hook holds ("nothing waits silently"): a pod in PreparingDelete or
// PreparingUpdate stays there until whoever owns the hook removes its finalizer or label. The
// controller has nothing to do meanwhile, so without this the CloneSet would show no reason why
// it is short of pods or not updating. Waiting for a hook is the hook working, not a failure:
// the hold goes on the PodsHeld condition (held-condition.ts), naming the hook and the pods.
import { LifecycleState } from '../keys.ts';
import { isHooked } from './lifecycle.ts';
import type { PlanContext } from '../context.ts';
import { describeHeldPods } from './held-pods.ts';
import type { PodHold } from '../plan.ts';
import { lifecycleState, podName } from '../pods/pod-state.ts';
import type { Hook } from '../types.ts';

const HOOKS = [
  { name: 'preDelete', state: LifecycleState.PreparingDelete },
  { name: 'inPlaceUpdate', state: LifecycleState.PreparingUpdate },
] as const;

/** "finalizer a, label k=v": what the hook's owner has to remove. */
function describeHook(hook: Hook): string {
  const parts = [...(hook.finalizersHandler ?? []).map((f) => `finalizer ${f}`), ...Object.entries(hook.labelsHandler ?? {}).map(([k, v]) => `label ${k}=${v}`)];
  return parts.join(', ');
}

export function hookWaits(ctx: PlanContext): PodHold[] {
  const holds: PodHold[] = [];
  for (const h of HOOKS) {
    const hook = ctx.cs.spec.lifecycle?.[h.name];
    if (!hook) continue;
    const held = ctx.pods.filter((p) => lifecycleState(p) === h.state && isHooked(p, hook)).map(podName);
    if (held.length === 0) continue;
    holds.push({ kind: 'LifecycleHook', message: `waiting for lifecycle hook ${h.name} (${describeHook(hook)}) to release ${describeHeldPods(held)} held in ${h.state}` });
  }
  return holds;
}
