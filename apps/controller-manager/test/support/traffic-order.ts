// Was a pod listed as ready by an EndpointSlice at the moment of a given pod write? Both come
// from etcd, whose resourceVersions are one increasing sequence across kinds, so "the slices as
// of resourceVersion r" is every slice's last version at or before r.

export interface SliceVersion {
  type: string;
  object: {
    metadata?: { uid?: string; resourceVersion?: string; labels?: Record<string, string> };
    endpoints?: { conditions?: { ready?: boolean | null }; targetRef?: { kind?: string; uid?: string } }[];
  };
}

const rvOf = (rv: string | undefined): bigint => BigInt(rv ?? '0');

/** The Services whose slices, as of resourceVersion `rv`, list the pod (by uid) as ready. */
export function servicesListingReady(slices: readonly SliceVersion[], podUid: string, rv: string): string[] {
  const at = rvOf(rv);
  const latest = new Map<string, SliceVersion>();
  for (const v of slices) {
    if (rvOf(v.object.metadata?.resourceVersion) > at) continue;
    const uid = v.object.metadata?.uid ?? '';
    if (v.type === 'DELETED') latest.delete(uid);
    else {
      const prev = latest.get(uid);
      if (!prev || rvOf(prev.object.metadata?.resourceVersion) <= rvOf(v.object.metadata?.resourceVersion)) latest.set(uid, v);
    }
  }
  const out = new Set<string>();
  for (const v of latest.values()) {
    const listed = (v.object.endpoints ?? []).some((e) => e.targetRef?.kind === 'Pod' && e.targetRef.uid === podUid && e.conditions?.ready !== false);
    if (listed) out.add(v.object.metadata?.labels?.['kubernetes.io/service-name'] ?? '?');
  }
  return [...out].sort();
}

/** One pod write that changed an image or began a deletion, with the Services listing the pod as ready at that write. */
export interface OperationAtWrite {
  pod: string;
  what: string;
  listedBy: string[];
}

type ObservedPod = {
  metadata?: { name?: string; uid?: string; resourceVersion?: string; labels?: Record<string, string>; deletionTimestamp?: unknown; finalizers?: string[] };
  spec?: { containers?: { image?: string }[] };
};

/** The writes among `transitions` (consecutive versions of each pod of label app=`app`) that operated a pod. */
export function operationsAtWrites(transitions: readonly [ObservedPod, ObservedPod][], slices: readonly SliceVersion[], app: string): OperationAtWrite[] {
  const out: OperationAtWrite[] = [];
  for (const [before, after] of transitions) {
    if (before.metadata?.labels?.app !== app) continue;
    const imageBefore = before.spec?.containers?.[0]?.image;
    const imageAfter = after.spec?.containers?.[0]?.image;
    const what = imageBefore !== imageAfter ? `image ${imageBefore} -> ${imageAfter}` : !before.metadata?.deletionTimestamp && after.metadata?.deletionTimestamp ? 'deletion' : undefined;
    if (!what) continue;
    out.push({ pod: after.metadata!.name!, what, listedBy: servicesListingReady(slices, after.metadata!.uid!, after.metadata!.resourceVersion!) });
  }
  return out;
}

/** The writes that took `finalizer` off a pod of app=`app` while a slice still listed it as ready. */
export function finalizerDropsWhileListed(transitions: readonly [ObservedPod, ObservedPod][], slices: readonly SliceVersion[], app: string, finalizer: string): { pod: string; listedBy: string[] }[] {
  return transitions
    .filter(([before, after]) => before.metadata?.labels?.app === app && (before.metadata?.finalizers ?? []).includes(finalizer) && !(after.metadata?.finalizers ?? []).includes(finalizer))
    .map(([, after]) => ({ pod: after.metadata!.name!, listedBy: servicesListingReady(slices, after.metadata!.uid!, after.metadata!.resourceVersion!) }))
    .filter((d) => d.listedBy.length > 0);
}
