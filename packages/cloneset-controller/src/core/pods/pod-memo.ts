// Facts read from one version of a pod, worked out once for that version. A CloneSet of
// 10,000 pods is planned again on every event of any of its pods, and every pass read the same
// unchanged pods again: parsed the in-place state and grace annotations, the timestamps and the
// operation record of each (the pass's largest costs, README "Planning cost"). The informer
// caches freeze every object they hold and replace it on change, so a frozen pod object *is* one
// version: a fact derived from it alone (never from the CloneSet, the clock or other pods) is
// kept against it and dropped with it. A pod that is not frozen (a test's literal) may still
// change and is read afresh each time.
//
// One WeakMap entry per pod version holds every fact in a slot of its own: a WeakMap entry is
// an ephemeron the garbage collector must trace, and a rollout replaces thousands of versions.

/** Marks a slot no fact was kept in yet (a fact may itself be undefined). */
const UNSET = Symbol('unset');
const factsByPod = new WeakMap<object, unknown[]>();
let slots = 0;

function kept(pod: object, slot: number): unknown {
  const facts = factsByPod.get(pod);
  return facts !== undefined && slot < facts.length ? facts[slot] : UNSET;
}

/** Keeps `value` in the pod's slot when the pod is frozen (one version); says whether it did. */
function keep(pod: object, slot: number, value: unknown): boolean {
  if (!Object.isFrozen(pod)) return false;
  let facts = factsByPod.get(pod);
  if (facts === undefined) {
    // Every slot is taken as its module loads, so `slots` is final by the first pass.
    facts = new Array<unknown>(slots).fill(UNSET);
    factsByPod.set(pod, facts);
  }
  facts[slot] = value;
  return true;
}

/** `derive` read once per frozen pod; an object it returns is frozen too, as callers share it. */
export function memoByPod<P extends object, T>(derive: (pod: P) => T): (pod: P) => T {
  const slot = slots++;
  return (pod) => {
    const hit = kept(pod, slot);
    if (hit !== UNSET) return hit as T;
    const value = derive(pod);
    if (keep(pod, slot, value) && typeof value === 'object' && value !== null) Object.freeze(value);
    return value;
  };
}

/**
 * A mark on frozen pod versions, set by a caller that knows something holds for that version
 * whatever else the pass reads (refresh's pods with nothing to do); a pod not frozen is never marked.
 */
export function podVersionMark(): { has(pod: object): boolean; add(pod: object): void } {
  const slot = slots++;
  return { has: (pod) => kept(pod, slot) === true, add: (pod) => void keep(pod, slot, true) };
}
