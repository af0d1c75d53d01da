// Facts read from one version of a pod, worked out once for that version. A CloneSet of
// 10,000 pods is planned again on every event of any of its pods, and every pass read the same
// unchanged pods again: parsed the in-place state and grace annotations, the timestamps and the
// operation record of each (the pass's largest costs, README "Planning cost"). The informer
// caches freeze every object they hold and replace it on change, so a frozen pod object *is* one
// version: a fact derived from it alone (never from the CloneSet, the clock or other pods) is
// kept in a WeakMap against it and dropped with it. A pod that is not frozen (a test's literal)
// may still change and is read afresh each time.

/** `derive` read once per frozen pod; the value is frozen too, as callers share it. */
export function memoByPod<P extends object, T>(derive: (pod: P) => T): (pod: P) => T {
  const memo = new WeakMap<P, { value: T }>();
  return (pod) => {
    const hit = memo.get(pod);
    if (hit) return hit.value;
    const value = derive(pod);
    if (Object.isFrozen(pod)) {
      if (typeof value === 'object' && value !== null) Object.freeze(value);
      memo.set(pod, { value });
    }
    return value;
  };
}
