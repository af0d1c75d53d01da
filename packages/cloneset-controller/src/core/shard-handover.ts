// When a shard of a ControllerRing may plan a CloneSet it has just been given. Its caches of the
// CloneSet, its pods, PVCs and revisions are separate watches, each filtered by the shard label,
// and the sharder relabels them one by one: the CloneSet can arrive before its pods. Planning
// then would create pods that already run (a pod's name carries a random instance id, so the
// apiserver would not refuse them). The new owner therefore reads what the cluster holds of the
// CloneSet once (a live list, not the caches) and plans only after its caches show all of it.

/** What the live read found: the cache keys (namespace/name) of the controlled objects, by cache. */
export interface ControlledInCluster {
  readonly pods: readonly string[];
  readonly pvcs: readonly string[];
  readonly revisions: readonly string[];
}

export interface HandoverState {
  readonly listedAtMs: number;
  readonly listed: ControlledInCluster;
}

export type HandoverVerdict =
  /** Nothing read yet, or the wait outlived its window (objects deleted since may never show): read the cluster. */
  | { readonly kind: 'list' }
  | { readonly kind: 'wait'; readonly missing: readonly string[] }
  | { readonly kind: 'ready' };

export interface CacheView {
  readonly pods: (key: string) => boolean;
  readonly pvcs: (key: string) => boolean;
  readonly revisions: (key: string) => boolean;
}

export function handoverVerdict(state: HandoverState | undefined, inCache: CacheView, nowMs: number, windowMs: number): HandoverVerdict {
  if (!state) return { kind: 'list' };
  const missing = (['pods', 'pvcs', 'revisions'] as const).flatMap((cache) => state.listed[cache].filter((key) => !inCache[cache](key)).map((key) => `${cache}/${key}`));
  if (missing.length === 0) return { kind: 'ready' };
  return nowMs - state.listedAtMs >= windowMs ? { kind: 'list' } : { kind: 'wait', missing };
}
