// ReCreate (OpenKruise's recreate update): the Update step marks pods specified-delete, and the next pass's Scale
// step deletes them (OpenKruise's scale step). That next Scale step is planned here, from this pass's pods
// with the marks applied, so the same deletes go out one pass sooner (a watch round trip and a
// status write per batch); the executor deletes a pod only once its mark has landed. Whenever
// that Scale step would do anything but delete pods marked in this pass (scale out, hold a pod
// for a hook or for PodOpsLifecycle, delete another pod), nothing is planned now and the next
// pass decides as before.
import type { V1Pod } from '@kubernetes/client-node';
import type { PlanContext } from '../context.ts';
import { SPECIFIED_DELETE_LABEL } from '../keys.ts';
import type { DeletePodAction, PlanAction } from '../plan.ts';
import { podName } from '../pods/pod-state.ts';
import { planScaleStages } from './scale-plan.ts';
import type { Stages } from '../stages.ts';

/** Pods this pass's actions mark specified-delete for a recreate. */
function markedForRecreate(actions: readonly PlanAction[]): Set<string> {
  const marked = new Set<string>();
  for (const a of actions) {
    if (a.kind === 'patchPod' && a.reason === 'RecreateUpdate' && a.labels?.[SPECIFIED_DELETE_LABEL] === 'true') marked.add(a.name);
  }
  return marked;
}

/**
 * The deletes the next pass's Scale step would plan once the marks are in the cache, or none; a
 * Scale step of its own, so in stages of its own (../stages.ts), after a yield.
 */
export function* deletesAfterRecreateMarks(ctx: PlanContext, actions: readonly PlanAction[]): Stages<DeletePodAction[]> {
  const marked = markedForRecreate(actions);
  if (marked.size === 0) return [];
  yield;
  const withMark = (p: V1Pod): V1Pod =>
    marked.has(podName(p)) ? { ...p, metadata: { ...p.metadata, labels: { ...(p.metadata?.labels ?? {}), [SPECIFIED_DELETE_LABEL]: 'true' } } } : p;
  const next = yield* planScaleStages({ ...ctx, pods: ctx.pods.map(withMark), allPods: ctx.allPods.map(withMark) });
  const onlyMarkedDeletes =
    next.errors.length === 0 &&
    next.waits.length === 0 &&
    next.actions.every((a) => a.kind === 'deletePod' && a.reason === 'SpecifiedDelete' && marked.has(a.name));
  return onlyMarkedDeletes ? (next.actions as DeletePodAction[]) : [];
}
