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
