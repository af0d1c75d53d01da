// In-place resize of cpu and memory (gate InPlaceWorkloadVerticalScaling, as OpenKruise names it;
// README, "In-place resize"): which container resource changes the pods/resize subresource can
// make, whether the pod's node can take them, and whether the pod's status shows them applied.
import type { V1Container, V1PodSpec, V1Pod } from '@kubernetes/client-node';
import { canonicalQuantity, semanticallyEqual } from '../revisions/canonical.ts';
import { findIn } from '../frozen-lists.ts';
import type { ContainerResources, Resizable } from '../plan.ts';

/** The resources pods/resize changes; any other resource change needs a new pod. */
export const RESIZABLE = ['cpu', 'memory'] as const satisfies readonly Resizable[];


type ResourceMap = Record<string, string | number> | undefined;

function pickResizable(map: ResourceMap): Partial<Record<Resizable, string>> {
  const out: Partial<Record<Resizable, string>> = {};
  for (const r of RESIZABLE) if (map?.[r] !== undefined) out[r] = String(map[r]);
  return out;
}

function withoutResizable(map: ResourceMap): Record<string, string | number> {
  return Object.fromEntries(Object.entries(map ?? {}).filter(([k]) => !(RESIZABLE as readonly string[]).includes(k)));
}

const sameQuantity = (a: string | number | undefined, b: string | number | undefined): boolean =>
  a === undefined || b === undefined ? a === b : canonicalQuantity(a) === canonicalQuantity(b);

/** The cpu/memory keys whose quantity differs between two resource maps. */
function changedKeys(from: ResourceMap, to: ResourceMap): Resizable[] {
  return RESIZABLE.filter((r) => !sameQuantity(from?.[r], to?.[r]));
}

/**
 * How `to` changes a container's resources: `none`; the cpu/memory values pods/resize writes;
 * or undefined when pods/resize cannot make the change without a restart: another resource, a
 * removed request or limit (the apiserver refuses removals), or a changed resource whose
 * `resizePolicy` is RestartContainer (a resize that restarts the container is not made in place).
 */
export function containerResize(from: V1Container, to: V1Container): ContainerResources | 'none' | undefined {
  const [a, b] = [from.resources, to.resources];
  const others = (r: typeof a) => ({ ...r, requests: withoutResizable(r?.requests), limits: withoutResizable(r?.limits) });
  if (!semanticallyEqual(others(a), others(b))) return undefined;
  const changed = new Set([...changedKeys(a?.requests, b?.requests), ...changedKeys(a?.limits, b?.limits)]);
  if (changed.size === 0) return 'none';
  const removed = (x: ResourceMap, y: ResourceMap) => RESIZABLE.some((r) => x?.[r] !== undefined && y?.[r] === undefined);
  if (removed(a?.requests, b?.requests) || removed(a?.limits, b?.limits)) return undefined;
  const restarts = (to.resizePolicy ?? []).some((p) => changed.has(p.resourceName as Resizable) && p.restartPolicy === 'RestartContainer');
  if (restarts) return undefined;
  const requests = pickResizable(b?.requests);
  const limits = pickResizable(b?.limits);
  return { ...(Object.keys(requests).length ? { requests } : {}), ...(Object.keys(limits).length ? { limits } : {}) };
}

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** A rational quantity "num/den" as a comparable pair. */
function rational(q: string | number | undefined): [bigint, bigint] | undefined {
  const c = q === undefined ? undefined : canonicalQuantity(q);
  if (!c) return undefined;
  const [num, den] = c.split('/');
  return [BigInt(num ?? '0'), BigInt(den ?? '1')];
}

function addRational(a: [bigint, bigint], b: [bigint, bigint]): [bigint, bigint] {
  return [a[0] * b[1] + b[0] * a[1], a[1] * b[1]];
}

function compareRational(a: [bigint, bigint], b: [bigint, bigint]): number {
  const d = a[0] * b[1] - b[0] * a[1];
  return d > 0n ? 1 : d < 0n ? -1 : 0;
}

/**
 * The pod's QoS class as Kubernetes computes it (cpu and memory of every container; a limit
 * without a request counts as the request, as the apiserver defaults a pod): the apiserver
 * refuses a resize that changes it.
 */
export function qosClass(spec: V1PodSpec | undefined): QosClass {
  const containers = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
  const requests = new Map<string, [bigint, bigint]>();
  const limits = new Map<string, [bigint, bigint]>();
  let guaranteed = true;
  const add = (m: Map<string, [bigint, bigint]>, name: string, q: [bigint, bigint]) => m.set(name, m.has(name) ? addRational(m.get(name)!, q) : q);
  for (const c of containers) {
    const limited = new Set<string>();
    for (const r of RESIZABLE) {
      const limit = rational(c.resources?.limits?.[r]);
      const request = rational(c.resources?.requests?.[r]) ?? limit;
      if (request && request[0] !== 0n) add(requests, r, request);
      if (limit && limit[0] !== 0n) {
        add(limits, r, limit);
        limited.add(r);
      }
    }
    if (limited.size < RESIZABLE.length) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [r, q] of requests) {
      const limit = limits.get(r);
      if (!limit || compareRational(limit, q) !== 0) guaranteed = false;
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/**
 * Whether the node's allocatable cpu and memory hold the pod's requests once `resize` is applied
 * (the apiserver refuses a resize beyond them, admission plugin PodResizeValidator): regular and
 * sidecar containers add up, a plain init container counts alone, overhead on top. Unknown
 * allocatable (no node yet, not in the cache) is no objection.
 */
export function resizeFitsNode(pod: V1Pod, resize: Readonly<Record<string, ContainerResources>>, allocatable: ResourceMap): { fits: true } | { fits: false; message: string } {
  if (!allocatable) return { fits: true };
  const request = (c: V1Container, r: Resizable) => rational(resize[c.name]?.requests?.[r] ?? c.resources?.requests?.[r]) ?? [0n, 1n];
  const short: string[] = [];
  for (const r of RESIZABLE) {
    const capacity = rational(allocatable[r]);
    if (!capacity) continue;
    let running: [bigint, bigint] = [0n, 1n];
    let peak: [bigint, bigint] = [0n, 1n];
    for (const c of pod.spec?.initContainers ?? []) {
      if (c.restartPolicy === 'Always') running = addRational(running, request(c, r));
      else {
        const alone = addRational(running, request(c, r));
        if (compareRational(alone, peak) > 0) peak = alone;
      }
    }
    for (const c of pod.spec?.containers ?? []) running = addRational(running, request(c, r));
    let total = compareRational(running, peak) >= 0 ? running : peak;
    const overhead = rational(pod.spec?.overhead?.[r]);
    if (overhead) total = addRational(total, overhead);
    if (compareRational(total, capacity) > 0) short.push(`${r} (requests ${show(total, r)}, allocatable ${String(allocatable[r])})`);
  }
  return short.length === 0 ? { fits: true } : { fits: false, message: `node ${pod.spec?.nodeName ?? ''} has not enough allocatable ${short.join(', ')}` };
}

function show(q: [bigint, bigint], r: Resizable): string {
  // cpu in millicores, memory in bytes, as the apiserver's refusal words them.
  const scaled = r === 'cpu' ? (q[0] * 1000n) / q[1] : q[0] / q[1];
  return r === 'cpu' ? `${scaled}m` : String(scaled);
}

/**
 * Whether every container reports in its status the cpu and memory its spec asks for: a resize
 * is applied. A container without a status (or one without resources) is not there yet.
 */
export function resizeApplied(pod: V1Pod): boolean {
  for (const c of pod.spec?.containers ?? []) {
    const status = findIn(pod.status?.containerStatuses, (s) => s.name === c.name);
    if (!status?.resources) return false;
    const same = (spec: ResourceMap, reported: ResourceMap) => changedKeys(spec, reported).length === 0;
    if (!same(c.resources?.requests, status.resources.requests) || !same(c.resources?.limits, status.resources.limits)) return false;
  }
  return true;
}
