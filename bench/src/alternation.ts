// The order a scenario runs its variants in when it repeats them: forward, then backward, then
// forward again (A B, B A, A B), so a drift of the shared machine over the run (load from other
// tenants, a growing etcd) hits the CloneSet and the Deployment alike instead of always favouring
// whichever ran first.

export interface Turn<T> {
  variant: T;
  /** 0-based repetition the turn belongs to. */
  repeat: number;
}

export function alternatingOrder<T>(variants: readonly T[], repeats: number): Turn<T>[] {
  const turns: Turn<T>[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    const order = repeat % 2 === 0 ? variants : [...variants].reverse();
    for (const variant of order) turns.push({ variant, repeat });
  }
  return turns;
}
