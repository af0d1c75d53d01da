// Group/version/resource of a kind and the REST paths built from it.

export interface GroupVersionResource {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural resource name, e.g. pods, clonesets. */
  readonly resource: string;
  readonly namespaced: boolean;
  /** Kind, used for apiVersion/kind on created objects and in messages. */
  readonly kind: string;
}

export function apiVersionOf(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version;
}

/** Built-in types accept strategic merge patches; custom resources answer 415. */
export function isBuiltIn(gvr: GroupVersionResource): boolean {
  const g = gvr.group;
  return g === '' || !g.includes('.') || g.endsWith('.k8s.io');
}

/**
 * /api/v1/namespaces/ns/pods/name/status; namespace undefined lists across all namespaces
 * (or addresses a cluster-scoped object).
 */
export function resourcePath(
  gvr: GroupVersionResource,
  namespace?: string,
  name?: string,
  subresource?: string,
): string {
  let path = gvr.group ? `/apis/${gvr.group}/${gvr.version}` : `/api/${gvr.version}`;
  if (gvr.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${gvr.resource}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource) path += `/${subresource}`;
  return path;
}

const core = (resource: string, kind: string, namespaced = true): GroupVersionResource => ({
  group: '',
  version: 'v1',
  resource,
  kind,
  namespaced,
});

/** The built-in resources the suite's controllers use. */
export const Resources = {
  pods: core('pods', 'Pod'),
  configMaps: core('configmaps', 'ConfigMap'),
  secrets: core('secrets', 'Secret'),
  persistentVolumeClaims: core('persistentvolumeclaims', 'PersistentVolumeClaim'),
  services: core('services', 'Service'),
  namespaces: core('namespaces', 'Namespace', false),
  nodes: core('nodes', 'Node', false),
  coreEvents: core('events', 'Event'),
  events: { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true },
  leases: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
  controllerRevisions: { group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true },
  endpointSlices: { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true },
} as const satisfies Record<string, GroupVersionResource>;
