// Scale-in deletion order (OpenKruise's scale-in order): first element = deleted first.
import type { V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import { POD_DELETION_COST_ANNOTATION } from '../keys.ts';
import { isAvailable, isPodReadyCondition, maxRestartCount, podName, readySinceMs } from '../pods/pod-state.ts';
import { toMillis } from '../time.ts';
import type { NodeLabels } from '../context.ts';

export interface ScaleInOrderOptions {
  minReadySeconds: number;
  nowMs: number;
  /** The template's topologySpreadConstraints select the ranker. */
  template?: V1PodTemplateSpec;
  nodeLabels?: NodeLabels;
}

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

export function deletionCost(pod: V1Pod): number {
  const raw = pod.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (raw === undefined) return 0;
  const n = Number(raw);
  return Number.isInteger(n) && Math.abs(n) <= 2147483647 ? n : 0;
}

type Cmp = (a: V1Pod, b: V1Pod) => number;

const byAssigned: Cmp = (a, b) => Number(!!a.spec?.nodeName) - Number(!!b.spec?.nodeName);
const byPhase: Cmp = (a, b) => (PHASE_ORDER[a.status?.phase ?? ''] ?? 0) - (PHASE_ORDER[b.status?.phase ?? ''] ?? 0);
const byCost: Cmp = (a, b) => deletionCost(a) - deletionCost(b);
const byRestarts: Cmp = (a, b) => maxRestartCount(b) - maxRestartCount(a);
const INF = Number.POSITIVE_INFINITY;
const byCreation: Cmp = (a, b) =>
  (toMillis(b.metadata?.creationTimestamp) ?? INF) - (toMillis(a.metadata?.creationTimestamp) ?? INF) || 0;

const byReadyTime: Cmp = (a, b) => {
    if (!isPodReadyCondition(a) || !isPodReadyCondition(b)) return 0;
    // More recently ready first; the zero time counts as the most recent.
    return (readySinceMs(b) ?? INF) - (readySinceMs(a) ?? INF) || 0;
};

// Ordering reads the PodReady condition only, not the phase.
const byReady: Cmp = (a, b) => Number(isPodReadyCondition(a)) - Number(isPodReadyCondition(b));

function chain(...cmps: Cmp[]): Cmp {
  return (a, b) => {
    for (const c of cmps) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };
}

/** Same-node ranks (OpenKruise's scale-in order): on a node with k > 1 pods, ranks k-1..1, the survivor 0. */
export function sameNodeRanks(pods: readonly V1Pod[]): Map<V1Pod, number> {
  const cmp = chain(byAssigned, byPhase, byReady, byCost, byReadyTime, byRestarts, byCreation);
  const byNode = new Map<string, V1Pod[]>();
  for (const p of pods) {
    const node = p.spec?.nodeName;
    if (!node) continue;
    byNode.set(node, [...(byNode.get(node) ?? []), p]);
  }
  const ranks = new Map<V1Pod, number>();
  for (const group of byNode.values()) {
    if (group.length < 2) continue;
    const sorted = [...group].sort(cmp);
    sorted.forEach((p, i) => ranks.set(p, sorted.length - 1 - i));
  }
  return ranks;
}

const HOSTNAME_KEY = 'kubernetes.io/hostname';

/**
 * Spread-constraint ranks (OpenKruise's scale-in order): per topologyKey, the i-th pod of a value group of
 * size m scores (m - i) * ln(groups + 2). Within a group, pods stacked on a node go
 * first (same-node rank), then the base order; the spec leaves the exact tie-break
 * open and names this effect.
 */
export function spreadRanks(pods: readonly V1Pod[], opts: ScaleInOrderOptions): Map<V1Pod, number> {
  const constraints = opts.template?.spec?.topologySpreadConstraints ?? [];
  if (constraints.length === 0) return sameNodeRanks(pods);
  const nodeRank = sameNodeRanks(pods);
  const base = chain(byAssigned, byPhase, byReady, byCost, byReadyTime, byRestarts, byCreation);
  const ranks = new Map<V1Pod, number>();
  for (const c of constraints) {
    const groups = new Map<string, V1Pod[]>();
    for (const p of pods) {
      const node = p.spec?.nodeName;
      if (!node) continue;
      const value = opts.nodeLabels?.(node)?.[c.topologyKey];
      if (value === undefined) continue;
      groups.set(value, [...(groups.get(value) ?? []), p]);
    }
    const weight = Math.log(groups.size + 2);
    for (const group of groups.values()) {
      const cmp: Cmp =
        c.topologyKey === HOSTNAME_KEY ? base : (a, b) => (nodeRank.get(b) ?? 0) - (nodeRank.get(a) ?? 0) || base(a, b);
      const sorted = [...group].sort(cmp);
      sorted.forEach((p, i) => ranks.set(p, (ranks.get(p) ?? 0) + (sorted.length - i) * weight));
    }
  }
  return ranks;
}

/** Pods sorted in deletion order (OpenKruise's scale-in order). */
export function sortForScaleIn(pods: readonly V1Pod[], opts: ScaleInOrderOptions): V1Pod[] {
  const ranks = spreadRanks(pods, opts);
  const byAvailable: Cmp = (a, b) =>
    Number(isAvailable(a, opts.minReadySeconds, opts.nowMs)) - Number(isAvailable(b, opts.minReadySeconds, opts.nowMs));
  const byRank: Cmp = (a, b) => (ranks.get(b) ?? 0) - (ranks.get(a) ?? 0);
  const byName: Cmp = (a, b) => (podName(a) < podName(b) ? -1 : podName(a) > podName(b) ? 1 : 0);
  return [...pods].sort(
    chain(byAssigned, byPhase, byAvailable, byReady, byCost, byRank, byReadyTime, byRestarts, byCreation, byName),
  );
}
