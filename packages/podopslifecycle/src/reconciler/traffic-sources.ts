// What the traffic cooperation reads from the shared caches: the Services of a namespace and the
// EndpointSlice endpoints naming a pod (an index by target pod, so a reconcile never scans slices).
import { NamespaceIndex, namespacedKey, type DeepReadonly, type KubeObject, type CachedSource } from '@cloneset-suite/kube-runtime';
import { serviceIgnored, type PodEndpoint, type TrafficService } from '../core/traffic-plan.ts';

export type ServiceObject = KubeObject & {
  spec?: { selector?: Record<string, string>; publishNotReadyAddresses?: boolean; type?: string };
};

export type EndpointSliceObject = KubeObject & {
  endpoints?: { conditions?: { ready?: boolean | null }; targetRef?: { kind?: string; name?: string; namespace?: string; uid?: string } }[];
};

/** EndpointSlices by the `namespace/name` of every pod they list. */
export const SLICE_POD_INDEX = 'endpointslice-pods';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

export function slicePodKeys(slice: DeepReadonly<EndpointSliceObject>): string[] {
  const namespace = slice.metadata?.namespace;
  const keys = (slice.endpoints ?? [])
    .filter((e) => e.targetRef?.kind === 'Pod' && e.targetRef.name)
    .map((e) => namespacedKey(e.targetRef?.namespace ?? namespace, e.targetRef!.name!));
  return [...new Set(keys)];
}

export function trafficServicesIn(services: CachedSource<ServiceObject>, namespace: string): TrafficService[] {
  return services.byIndex(NamespaceIndex, namespace).map((svc) => ({
    name: svc.metadata?.name ?? '',
    selector: svc.spec?.selector ?? null,
    ignored: serviceIgnored(svc as ServiceObject),
  }));
}

export function endpointsOfPod(slices: CachedSource<EndpointSliceObject>, namespace: string, name: string): PodEndpoint[] {
  const out: PodEndpoint[] = [];
  for (const slice of slices.byIndex(SLICE_POD_INDEX, namespacedKey(namespace, name))) {
    const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
    if (!service) continue;
    for (const e of slice.endpoints ?? []) {
      if (e.targetRef?.kind !== 'Pod' || e.targetRef.name !== name) continue;
      out.push({ service, ready: e.conditions?.ready !== false, podUid: e.targetRef.uid });
    }
  }
  return out;
}
