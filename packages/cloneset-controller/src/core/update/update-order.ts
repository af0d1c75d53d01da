// Update order (OpenKruise's update order): default order, then priority, then scatter, then
// PreparingUpdate pods to the front. First element = updated first.
import type { V1Pod } from '@kubernetes/client-node';
import { LifecycleState } from '../keys.ts';
import { isPodReadyCondition, lifecycleState, maxRestartCount, podLabels, readySinceMs } from '../pods/pod-state.ts';
import { selectorMatches } from '../selector.ts';
import { toMillis } from '../time.ts';
import { memoByPod } from '../pods/pod-memo.ts';
import type { CloneSetUpdateStrategy } from '../types.ts';

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
const INF = Number.POSITIVE_INFINITY;

/** What the default order compares, read once per pod: a comparator parsing timestamps runs n log n times. */
interface UpdateOrderKey {
  pod: V1Pod;
  scheduled: number;
  phase: number;
  ready: boolean;
  readySince: number;
  restarts: number;
  created: number;
  name: string;
}

// Read once per pod version (pod-memo.ts): a rollout orders the same unchanged pods on every pass.
const updateOrderKey = memoByPod((pod: V1Pod): UpdateOrderKey => {
  const ready = isPodReadyCondition(pod);
  return {
    pod,
    scheduled: Number(!!pod.spec?.nodeName),
    phase: PHASE_ORDER[pod.status?.phase ?? ''] ?? 0,
    ready,
    readySince: ready ? (readySinceMs(pod) ?? INF) : INF,
    restarts: maxRestartCount(pod),
    created: toMillis(pod.metadata?.creationTimestamp) ?? INF,
    name: pod.metadata?.name ?? '',
  };
});

/** Default order: unscheduled, Pending<Unknown<Running, not ready, recently ready, restarts, newer, then by name. */
export function defaultUpdateOrder(pods: readonly V1Pod[]): V1Pod[] {
  return pods
    .map(updateOrderKey)
    .sort((a, b) => {
      if (a.scheduled !== b.scheduled) return a.scheduled - b.scheduled;
      if (a.phase !== b.phase) return a.phase - b.phase;
      // Ordering reads the PodReady condition only, not the phase.
      if (a.ready !== b.ready) return Number(a.ready) - Number(b.ready);
      if (a.ready && b.ready) {
        // Infinity - Infinity is NaN: two zero times tie.
        const d = b.readySince - a.readySince || 0;
        if (d !== 0) return d;
      }
      const rc = b.restarts - a.restarts;
      if (rc !== 0) return rc;
      const age = b.created - a.created || 0;
      if (age !== 0) return age;
      // Creation times have a one-second grain: pods created together would otherwise follow the
      // order the cache lists them in, which a relist or a restart changes (kruise #2106).
      return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
    })
    .map((k) => k.pod);
}

/** Integer suffix of a label value: "sts-10" -> 10; none -> 0. */
export function orderSuffix(value: string): number {
  const m = /(\d+)$/.exec(value);
  return m ? Number(m[1]) : 0;
}

/**
 * Priority (OpenKruise's update order), a stable sort. Ties keep the default order (we fix quirk 1,
 * where Kruise reverses list positions). Quirk 2 is kept: with orderPriority a pod with
 * none of the keys gets level -1 and goes first, as the spec describes.
 */
export function applyPriority(pods: readonly V1Pod[], strategy: CloneSetUpdateStrategy['priorityStrategy']): V1Pod[] {
  const weights = strategy?.weightPriority ?? [];
  const orders = strategy?.orderPriority ?? [];
  if (weights.length > 0) {
    const w = (p: V1Pod) => weights.reduce((s, t) => s + (selectorMatches(t.matchSelector, podLabels(p)) ? t.weight : 0), 0);
    return [...pods].sort((a, b) => w(b) - w(a));
  }
  if (orders.length > 0) {
    const level = (p: V1Pod): [number, number] => {
      const labels = podLabels(p);
      const i = orders.findIndex((t) => Object.hasOwn(labels, t.orderedKey));
      if (i < 0) return [-1, 0];
      return [i, orderSuffix(labels[orders[i]?.orderedKey ?? ''] ?? '')];
    };
    return [...pods].sort((a, b) => {
      const [ia, va] = level(a);
      const [ib, vb] = level(b);
      if (ia !== ib) return ia - ib;
      return vb - va;
    });
  }
  return [...pods];
}

const matchesTerm = (p: V1Pod, t: { key: string; value: string }) => podLabels(p)[t.key] === t.value;

/** One scatter term (OpenKruise's update order). `all` is every claimed pod (for the total ratio). */
export function scatterOne(cands: readonly V1Pod[], term: { key: string; value: string }, all: readonly V1Pod[]): V1Pod[] {
  const M = cands.filter((p) => matchesTerm(p, term));
  const N = cands.filter((p) => !matchesTerm(p, term));
  if (M.length <= 1 || N.length <= 1) return [...cands];
  const held = M.pop() as V1Pod;
  const totalMatched = all.filter((p) => matchesTerm(p, term)).length - 1;
  const totalUnmatched = all.filter((p) => !matchesTerm(p, term)).length;
  const m = M.length;
  const n = N.length;
  let groups: number;
  let ms: number;
  let us: number;
  let remainder = 0;
  if (totalMatched <= 0 || totalUnmatched / totalMatched >= n / m) {
    groups = Math.min(m, n);
    ms = Math.round(m / groups);
    us = Math.round(n / groups);
  } else {
    const tg = Math.min(totalMatched, totalUnmatched);
    ms = Math.max(Math.round(totalMatched / tg), 1);
    us = Math.max(Math.round(totalUnmatched / tg), 1);
    groups = Math.min(Math.floor(m / ms), Math.floor(n / us));
    remainder = n - groups * us;
  }
  const out: V1Pod[] = [];
  let mi = 0;
  let ni = 0;
  for (; ni < remainder && ni < n; ni++) out.push(N[ni] as V1Pod);
  for (let g = 0; g < groups; g++) {
    for (let k = 0; k < ms && mi < m; k++) out.push(M[mi++] as V1Pod);
    for (let k = 0; k < us && ni < n; k++) out.push(N[ni++] as V1Pod);
  }
  while (mi < m) out.push(M[mi++] as V1Pod);
  while (ni < n) out.push(N[ni++] as V1Pod);
  out.push(held);
  return out;
}

/** Scatter terms from the most frequent among candidates to the least (OpenKruise's update order). */
export function applyScatter(cands: readonly V1Pod[], terms: CloneSetUpdateStrategy['scatterStrategy'], all: readonly V1Pod[]): V1Pod[] {
  if (!terms || terms.length === 0) return [...cands];
  const freq = (t: { key: string; value: string }) => cands.filter((p) => matchesTerm(p, t)).length;
  const ordered = terms.length === 1 ? terms : [...terms].sort((a, b) => freq(b) - freq(a));
  return ordered.reduce<V1Pod[]>((acc, t) => scatterOne(acc, t, all), [...cands]);
}

/** The full update order for candidates. */
export function sortForUpdate(
  cands: readonly V1Pod[],
  strategy: CloneSetUpdateStrategy | undefined,
  allPods: readonly V1Pod[],
): V1Pod[] {
  let list = defaultUpdateOrder(cands);
  list = applyPriority(list, strategy?.priorityStrategy);
  list = applyScatter(list, strategy?.scatterStrategy, allPods);
  const preparing = (p: V1Pod) => lifecycleState(p) === LifecycleState.PreparingUpdate;
  return [...list.filter(preparing), ...list.filter((p) => !preparing(p))];
}
