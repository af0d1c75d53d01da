// Pods Ready but not yet for minReadySeconds: they count as available (for maxUnavailable and
// status.availableReplicas) once the time has passed, and the status write asks for a pass then.
// Each is a wait of its own, with the seconds left.
import type { PlanContext } from '../context.ts';
import type { Wait } from '../wait.ts';
import { unavailability } from './pod-state.ts';
import { podName } from './pod-state.ts';

export function availabilityWaits(ctx: Pick<PlanContext, 'pods' | 'minReadySeconds' | 'nowMs'>): Wait[] {
  if (ctx.minReadySeconds <= 0) return [];
  return ctx.pods.flatMap((p): Wait[] => {
    const why = unavailability(p, ctx.minReadySeconds, ctx.nowMs);
    if (why?.cause !== 'minReadySeconds' || why.availableInMs === undefined) return [];
    return [{ kind: 'minReadySeconds', pods: [podName(p)], why, availableInSeconds: Math.ceil(why.availableInMs / 1000) }];
  });
}
