// The RBAC objects of deploy/ from the plan (rbac-plan.ts): as plain objects (the kustomize base,
// the tests' ServiceAccounts), as the Helm chart's template (the watched namespace and the
// certificate source are chart values) and as the kustomize components that switch the same two.
import { stringify } from 'yaml';
import type { ControllerRegistration } from '../controllers/registration.ts';
import { CONTROLLERS } from '../controllers/registry.ts';
import { defaultConfig } from '../config/flags.ts';
import type { PermissionNames, PolicyRule } from '../rbac.ts';
import { planRbac, type RbacPlan, type RbacScope } from './rbac-plan.ts';

const RBAC_API = 'rbac.authorization.k8s.io/v1';

export function defaultPermissionNames(): PermissionNames {
  const c = defaultConfig();
  return { leaseName: c.leaderElectionId, secretName: c.webhookSecretName, webhookConfigurationName: c.webhookConfigurationName };
}

export interface RbacOptions {
  controllers?: readonly ControllerRegistration[];
  /** Namespace of the ServiceAccount, the Lease and the certificate Secret. */
  namespace: string;
  /** Name of the ServiceAccount and stem of every RBAC object's name. */
  name: string;
  names?: PermissionNames;
  labels?: Record<string, string>;
  /** The one namespace watched (--namespace); every namespace when absent. */
  watchNamespace?: string;
  /** Self-managed certificates (the default); false with --webhook-cert-dir. */
  selfManagedCertificates?: boolean;
}

/** One role (ClusterRole or Role) and the binding of the ServiceAccount to it. */
interface Grant {
  slot: keyof RbacPlan;
  role: { kind: 'ClusterRole' | 'Role'; name: string; namespace?: string };
}

export const certificatesObjectName = (name: string): string => `${name}-certificates`;
export const watchedNamespaceObjectName = (name: string): string => `${name}-watched-namespace`;

function grants(o: RbacOptions, watchNamespace: string): Grant[] {
  return [
    { slot: 'clusterRole', role: { kind: 'ClusterRole', name: o.name } },
    { slot: 'ownNamespaceRole', role: { kind: 'Role', name: o.name, namespace: o.namespace } },
    { slot: 'certificatesClusterRole', role: { kind: 'ClusterRole', name: certificatesObjectName(o.name) } },
    { slot: 'certificatesRole', role: { kind: 'Role', name: certificatesObjectName(o.name), namespace: o.namespace } },
    { slot: 'watchedNamespaceRole', role: { kind: 'Role', name: watchedNamespaceObjectName(o.name), namespace: watchNamespace } },
  ];
}

function roleHead(g: Grant, labels: Record<string, string>): object {
  return { apiVersion: RBAC_API, kind: g.role.kind, metadata: { name: g.role.name, labels, ...(g.role.namespace ? { namespace: g.role.namespace } : {}) } };
}

function roleObject(g: Grant, labels: Record<string, string>, rules: PolicyRule[]): object {
  return { ...roleHead(g, labels), rules };
}

function bindingObject(g: Grant, o: RbacOptions, labels: Record<string, string>): object {
  return {
    apiVersion: RBAC_API,
    kind: g.role.kind === 'ClusterRole' ? 'ClusterRoleBinding' : 'RoleBinding',
    metadata: { name: g.role.name, labels, ...(g.role.namespace ? { namespace: g.role.namespace } : {}) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: g.role.kind, name: g.role.name },
    subjects: [{ kind: 'ServiceAccount', name: o.name, namespace: o.namespace }],
  };
}

function scopeOf(o: RbacOptions): RbacScope {
  return { watchNamespace: !!o.watchNamespace, selfManagedCertificates: o.selfManagedCertificates ?? true };
}

function planFor(o: RbacOptions, scope: RbacScope): RbacPlan {
  return planRbac(o.controllers ?? CONTROLLERS, o.names ?? defaultPermissionNames(), scope);
}

/** Every role with rules and its binding, for one watched namespace (or all) and one certificate source. */
export function rbacObjects(o: RbacOptions): object[] {
  const plan = planFor(o, scopeOf(o));
  const labels = o.labels ?? {};
  return grants(o, o.watchNamespace ?? '')
    .filter((g) => plan[g.slot].length > 0)
    .flatMap((g) => [roleObject(g, labels, plan[g.slot]), bindingObject(g, o, labels)]);
}

const yaml = (value: unknown): string => stringify(value, { lineWidth: 0 });
const indent = (text: string, by: string): string => text.replace(/^(?=.)/gm, by);
/**
 * A Helm action on a YAML comment line: the raw template stays parseable YAML (tests and tools
 * read it), and the rendered output keeps only a `#`.
 */
const action = (text: string, prefix = ''): string => `${prefix}# {{- ${text} }}\n`;

const WATCH_NAMESPACE_VALUE = '{{ .Values.watchNamespace }}';
const WATCHING = '.Values.watchNamespace';
const SELF_MANAGED = 'not .Values.webhook.existingCertSecret';

/** templates/rbac.yaml of the Helm chart: the objects of every scope, each under the chart values that call for it. */
export function helmRbacTemplate(o: RbacOptions): string {
  const labels = o.labels ?? {};
  const everywhere = planFor(o, { watchNamespace: false, selfManagedCertificates: true });
  const watched = planFor(o, { watchNamespace: true, selfManagedCertificates: true });
  const byKey = new Map(grants(o, WATCH_NAMESPACE_VALUE).map((g) => [g.slot, g]));
  const pair = (slot: keyof RbacPlan, plan: RbacPlan): string[] => {
    const g = byKey.get(slot)!;
    return [yaml(roleObject(g, labels, plan[slot])), yaml(bindingObject(g, o, labels))];
  };
  // The ClusterRole: its cluster-scoped rules always, the namespaced ones only when every namespace is watched.
  const cluster = byKey.get('clusterRole')!;
  const namespacedOnly = watched.watchedNamespaceRole;
  const clusterRole =
    yaml(roleHead(cluster, labels)) +
    'rules:\n' +
    (watched.clusterRole.length > 0 ? indent(yaml(watched.clusterRole), '  ') : '') +
    action(`if not ${WATCHING}`, '  ') +
    indent(yaml(namespacedOnly), '  ') +
    action('end', '  ');
  const docs = [clusterRole, yaml(bindingObject(cluster, o, labels)), ...pair('ownNamespaceRole', everywhere)].join('---\n');
  return (
    docs +
    action(`if ${SELF_MANAGED}`) +
    ['', ...pair('certificatesClusterRole', everywhere), ...pair('certificatesRole', everywhere)].join('---\n') +
    action('end') +
    action(`if ${WATCHING}`) +
    ['', ...pair('watchedNamespaceRole', watched)].join('---\n') +
    action('end')
  );
}

export interface ComponentFile {
  /** Relative to the component's directory. */
  file: string;
  content: string;
}

/** Stands in for the watched namespace in the watch-namespace component until its replacement runs. */
export const WATCHED_NAMESPACE_PLACEHOLDER = 'WATCHED-NAMESPACE';

/**
 * deploy/kustomize/components/watch-namespace: the Role and RoleBinding in the watched namespace,
 * and the ClusterRole cut to cluster-scoped rules (a strategic merge patch replaces its rules).
 * The kustomization.yaml beside them says where the namespace comes from.
 */
export function watchNamespaceComponentFiles(o: RbacOptions): ComponentFile[] {
  const labels = o.labels ?? {};
  const plan = planFor(o, { watchNamespace: true, selfManagedCertificates: true });
  const byKey = new Map(grants(o, WATCHED_NAMESPACE_PLACEHOLDER).map((g) => [g.slot, g]));
  const watchedRole = byKey.get('watchedNamespaceRole')!;
  return [
    { file: 'rbac.yaml', content: [yaml(roleObject(watchedRole, labels, plan.watchedNamespaceRole)), yaml(bindingObject(watchedRole, o, labels))].join('---\n') },
    { file: 'cluster-role-patch.yaml', content: yaml({ apiVersion: RBAC_API, kind: 'ClusterRole', metadata: { name: o.name }, rules: plan.clusterRole }) },
  ];
}

/**
 * deploy/kustomize/components/external-certificates: one patch per role or binding of
 * self-managed certificates, deleting it (kustomize takes one deletion per patch file).
 */
export function externalCertificatesComponentFiles(o: RbacOptions): ComponentFile[] {
  const byKey = new Map(grants(o, '').map((g) => [g.slot, g]));
  return (['certificatesClusterRole', 'certificatesRole'] as const).flatMap((slot) => {
    const g = byKey.get(slot)!;
    const metadata = { name: g.role.name, ...(g.role.namespace ? { namespace: g.role.namespace } : {}) };
    const bindingKind = g.role.kind === 'ClusterRole' ? 'ClusterRoleBinding' : 'RoleBinding';
    return [g.role.kind, bindingKind].map((kind) => ({ file: `delete-${kind.toLowerCase()}.yaml`, content: yaml({ $patch: 'delete', apiVersion: RBAC_API, kind, metadata }) }));
  });
}
