// Where a scale-out's time goes: for each pod, when a watcher first saw it created, bound to a
// node, with its readiness gate written and Ready; summarized as when 10%, 50%, 90% and all of
// the pods had reached each milestone.
import { isReady, type Pod } from './pods.ts';

export const MILESTONES = ['created', 'scheduled', 'gate written', 'Ready'] as const;
export type Milestone = (typeof MILESTONES)[number];
export const FRACTIONS = [0.1, 0.5, 0.9, 1] as const;

/** The CloneSet's readiness gate (the Deployment's pods have none). */
const GATE = 'InPlaceUpdateReady';

/** Which milestones a pod has reached, as a watcher sees it now. */
export function reached(p: Pod): Milestone[] {
  const out: Milestone[] = ['created'];
  if (p.spec?.nodeName) out.push('scheduled');
  if (p.status?.conditions?.some((c) => c.type === GATE && c.status === 'True')) out.push('gate written');
  if (isReady(p)) out.push('Ready');
  return out;
}

/** Per milestone, when each fraction of `total` pods had reached it (NaN when too few did). */
export function timelineQuantiles<M extends string = Milestone>(
  perPod: readonly Partial<Record<NoInfer<M>, number>>[],
  total: number,
  milestones: readonly M[] = MILESTONES as unknown as readonly M[],
): Record<M, number[]> {
  const out = {} as Record<M, number[]>;
  for (const m of milestones) {
    const times = perPod.map((p) => p[m]).filter((t): t is number => t !== undefined).sort((a, b) => a - b);
    out[m] = FRACTIONS.map((f) => times[Math.max(1, Math.ceil(f * total)) - 1] ?? Number.NaN);
  }
  return out;
}
