// Which RBAC object grants each rule the manager needs. A rule on a namespaced resource goes to
// the ClusterRole when every namespace is watched and to a Role in the watched namespace when one
// is (--namespace); cluster-scoped resources always need the ClusterRole; the Lease lives in the
// manager's own namespace. The rules of self-managed certificates (the Secret, the webhook
// configurations' and CRDs' caBundle) stand apart, so an install whose certificates come from
// elsewhere (--webhook-cert-dir, e.g. cert-manager) leaves them out.
import type { ControllerRegistration } from '../controllers/registration.ts';
import type { PermissionNames, PolicyRule } from '../rbac.ts';
import { managerPermissions } from '../rbac.ts';

type Scope = 'Cluster' | 'Namespaced';

/**
 * Every resource the manager's rules name, by `group/resource` (core: `/resource`), with its
 * scope as the apiserver serves it (`kubectl api-resources --namespaced=false`). A subresource
 * has its resource's scope.
 */
const RESOURCE_SCOPES: Readonly<Record<string, Scope>> = {
  '/nodes': 'Cluster',
  '/namespaces': 'Cluster',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': 'Cluster',
  'admissionregistration.k8s.io/validatingwebhookconfigurations': 'Cluster',
  'apiextensions.k8s.io/customresourcedefinitions': 'Cluster',
  '/pods': 'Namespaced',
  '/persistentvolumeclaims': 'Namespaced',
  '/services': 'Namespaced',
  '/secrets': 'Namespaced',
  '/configmaps': 'Namespaced',
  '/events': 'Namespaced',
  'events.k8s.io/events': 'Namespaced',
  'coordination.k8s.io/leases': 'Namespaced',
  'apps/controllerrevisions': 'Namespaced',
  'discovery.k8s.io/endpointslices': 'Namespaced',
  'apps.kruise.io/clonesets': 'Namespaced',
  'apps.kruise.io/imagepulljobs': 'Namespaced',
  'apps.kusionstack.io/podtransitionrules': 'Namespaced',
};

/** The scope of one (group, resource), subresources included; an unknown one is an error naming it. */
export function resourceScope(group: string, resource: string): Scope {
  const key = `${group}/${resource.split('/')[0]!}`;
  const scope = RESOURCE_SCOPES[key];
  if (!scope) throw new Error(`RBAC rule on resource "${resource}" of group "${group}": its scope is unknown; add "${key}" to RESOURCE_SCOPES in src/deploy/rbac-plan.ts`);
  return scope;
}

/** A rule whose groups and resources mix scopes is split into one rule per scope. */
export function splitByScope(rules: readonly PolicyRule[]): Record<Scope, PolicyRule[]> {
  const out: Record<Scope, PolicyRule[]> = { Cluster: [], Namespaced: [] };
  for (const rule of rules) {
    for (const scope of ['Cluster', 'Namespaced'] as const) {
      const pairs = rule.apiGroups.flatMap((g) => rule.resources.filter((r) => resourceScope(g, r) === scope).map((r) => [g, r] as const));
      if (pairs.length === 0) continue;
      if (pairs.length === rule.apiGroups.length * rule.resources.length) out[scope].push(rule);
      else for (const [g, r] of pairs) out[scope].push({ ...rule, apiGroups: [g], resources: [r] });
    }
  }
  return out;
}

export interface RbacScope {
  /** One namespace is watched (--namespace): namespaced rules go to a Role there. */
  watchNamespace: boolean;
  /** Certificates are self-managed (no --webhook-cert-dir). */
  selfManagedCertificates: boolean;
}

/** The rules of each RBAC object deploy/ renders; an empty list means the object is left out. */
export interface RbacPlan {
  /** Cluster-scoped resources, and namespaced ones in every namespace when none is watched. */
  clusterRole: PolicyRule[];
  /** Namespaced resources in the watched namespace. */
  watchedNamespaceRole: PolicyRule[];
  /** The manager's own namespace: the leader-election Lease. */
  ownNamespaceRole: PolicyRule[];
  /** Self-managed certificates: the webhook configurations and CRDs whose caBundle is kept. */
  certificatesClusterRole: PolicyRule[];
  /** Self-managed certificates: the Secret holding them, in the manager's own namespace. */
  certificatesRole: PolicyRule[];
}

export function planRbac(controllers: readonly ControllerRegistration[], names: PermissionNames, scope: RbacScope): RbacPlan {
  const own = managerPermissions(names);
  const byScope = splitByScope([...own.manager.cluster, ...controllers.flatMap((c) => c.permissions)]);
  const certificates = splitByScope(own.certificates.cluster);
  if (certificates.Namespaced.length > 0) throw new Error('self-managed certificates need a namespaced rule outside the manager\'s own namespace: add a Role for it in src/deploy/rbac-plan.ts');
  return {
    clusterRole: scope.watchNamespace ? byScope.Cluster : [...byScope.Cluster, ...byScope.Namespaced],
    watchedNamespaceRole: scope.watchNamespace ? byScope.Namespaced : [],
    ownNamespaceRole: own.manager.namespaced,
    certificatesClusterRole: scope.selfManagedCertificates ? certificates.Cluster : [],
    certificatesRole: scope.selfManagedCertificates ? own.certificates.namespaced : [],
  };
}
