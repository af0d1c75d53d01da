// Pods a lifecycle hook holds ("nothing waits silently"): a pod in PreparingDelete or
// PreparingUpdate stays there until whoever owns the hook removes its finalizer or label. The
// controller has nothing to do meanwhile, so without this the CloneSet would show no reason why
// it is short of pods or not updating. Waiting for a hook is the hook working, not a failure:
// the hold goes on the PodsHeld condition (held-condition.ts), naming the hook and the pods.
import { LifecycleState } from '../keys.ts';
import { isHooked } from './lifecycle.ts';
import type { PlanContext } from '../context.ts';
import { lifecycleState, podName } from '../pods/pod-state.ts';
import type { Hold } from '../wait.ts';

const HOOKS = [
  { name: 'preDelete', state: LifecycleState.PreparingDelete },
  { name: 'inPlaceUpdate', state: LifecycleState.PreparingUpdate },
] as const;

/** One hold per hook holding pods, with what its owner has to remove to release them. */
export function hookWaits(ctx: PlanContext): Hold[] {
  const holds: Hold[] = [];
  for (const h of HOOKS) {
    const hook = ctx.cs.spec.lifecycle?.[h.name];
    if (!hook) continue;
    const held = ctx.pods.filter((p) => lifecycleState(p) === h.state && isHooked(p, hook)).map(podName);
    if (held.length === 0) continue;
    holds.push({ kind: 'lifecycleHook', hook: h.name, state: h.state, pods: [...held].sort(), finalizers: [...(hook.finalizersHandler ?? [])], labels: { ...(hook.labelsHandler ?? {}) } });
  }
  return holds;
}
