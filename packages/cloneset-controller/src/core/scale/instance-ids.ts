// Instance ids and names (as OpenKruise's), with a fix (kruise #1099, #1433): an id is reused only
// while no pod object of that name exists; the controller waits only for a pod of its own
// that is terminating, never for one that is not ours or will not go away.
import type { V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { instanceIdOf, isActive, podName } from '../pods/pod-state.ts';

export const ID_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export const ID_LENGTH = 5;
/** Every id there is: 27^5. */
export const ID_SPACE = ID_ALPHABET.length ** ID_LENGTH;
/**
 * Draws in a row that may hit only taken ids before the space counts as full. Bounded, so a full
 * space ends the allocation in about a millisecond instead of never; at 90% taken, 1,000 misses
 * in a row happen with probability 0.9^1000 (about 1e-46).
 */
export const MAX_MISSES_PER_ID = 1_000;

export function randomInstanceId(random: () => number): string {
  let id = '';
  for (let i = 0; i < ID_LENGTH; i++) {
    id += ID_ALPHABET[Math.floor(random() * ID_ALPHABET.length) % ID_ALPHABET.length] ?? 'b';
  }
  return id;
}

export function podNameFor(csName: string, id: string): string {
  return `${csName}-${id}`;
}

export function pvcNameFor(claimTemplate: string, csName: string, id: string): string {
  return `${claimTemplate}-${csName}-${id}`;
}

export interface IdAllocationInput {
  csName: string;
  count: number;
  /** Every owned pod object, active or not. */
  pods: readonly V1Pod[];
  /** Owned PVCs not being deleted. */
  pvcs: readonly V1PersistentVolumeClaim[];
  /** disablePVCReuse: never reuse a free PVC's id. */
  disableReuse: boolean;
  random: () => number;
  /** Any pod of the namespace by name, ours or not (a released pod keeps its name). */
  podNamed?: (name: string) => V1Pod | undefined;
}

export interface IdAllocation {
  ids: string[];
  /** Names of our terminating pods whose ids are held back for reuse (fix 5); one slot each. */
  waitingFor: string[];
  /** No free id was found for some of the pods asked for: `ids` holds fewer. */
  exhausted: boolean;
}

/**
 * Ids for `count` new pods: ids of free PVCs first (sorted), then random draws that
 * clash with no active pod, PVC, pod name, or earlier pick. A free id whose pod
 * object is one of ours and terminating holds its slot (the caller waits and says so); one
 * whose name is held by a pod that is not ours (released, or another owner's) or that is
 * finished but not deleted is not reused, since that object may never go.
 */
export function allocateInstanceIds(input: IdAllocationInput): IdAllocation {
  const activeIds = new Set(input.pods.filter(isActive).map(instanceIdOf).filter((x) => x !== undefined));
  const names = new Map(input.pods.map((p) => [podName(p), p]));
  const holderOf = (name: string): { pod: V1Pod; ours: boolean } | undefined => {
    const ours = names.get(name);
    if (ours) return { pod: ours, ours: true };
    const other = input.podNamed?.(name);
    return other ? { pod: other, ours: false } : undefined;
  };
  const pvcIds = new Set(input.pvcs.map(instanceIdOf).filter((x) => x !== undefined));
  const ids: string[] = [];
  const waitingFor: string[] = [];
  if (!input.disableReuse) {
    const free = [...pvcIds].filter((id) => !activeIds.has(id)).sort();
    for (const id of free) {
      if (ids.length + waitingFor.length >= input.count) break;
      const name = podNameFor(input.csName, id);
      const holder = holderOf(name);
      if (!holder) ids.push(id);
      else if (holder.ours && holder.pod.metadata?.deletionTimestamp) waitingFor.push(name);
    }
  }
  const taken = new Set<string>([...activeIds, ...pvcIds, ...ids]);
  for (const p of input.pods) {
    const id = instanceIdOf(p);
    if (id !== undefined) taken.add(id);
  }
  let misses = 0;
  while (ids.length + waitingFor.length < input.count) {
    if (taken.size >= ID_SPACE || misses >= MAX_MISSES_PER_ID) return { ids, waitingFor, exhausted: true };
    const id = randomInstanceId(input.random);
    if (taken.has(id) || holderOf(podNameFor(input.csName, id))) {
      misses++;
      continue;
    }
    misses = 0;
    taken.add(id);
    ids.push(id);
  }
  return { ids, waitingFor, exhausted: false };
}

/** Slow-start batch sizes 1, 2, 4, ... capped by what is left (OpenKruise's scale-out). */
export function slowStartBatches(n: number): number[] {
  const out: number[] = [];
  let size = 1;
  for (let left = n; left > 0; size *= 2) {
    const b = Math.min(size, left);
    out.push(b);
    left -= b;
  }
  return out;
}
