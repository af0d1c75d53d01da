import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEPLOY_NAME, DEPLOY_NAMESPACE, deployRbacPlan, rbacObjects } from '../../src/deploy/render.ts';
import { resourceScope, splitByScope } from '../../src/deploy/rbac-plan.ts';
import { flattenRules, type PolicyRule } from '../../src/rbac.ts';

type Rbac = { kind: string; metadata: { name: string; namespace?: string }; rules?: PolicyRule[]; subjects?: { name: string; namespace: string }[] };

const CLUSTER_SCOPED = [
  ['', 'nodes'],
  ['admissionregistration.k8s.io', 'validatingwebhookconfigurations'],
  ['apiextensions.k8s.io', 'customresourcedefinitions'],
] as const;
const NAMESPACED = [
  ['', 'pods'],
  ['', 'pods/status'],
  ['', 'pods/finalizers'],
  ['', 'persistentvolumeclaims'],
  ['apps', 'controllerrevisions'],
  ['apps.kruise.io', 'clonesets/finalizers'],
  ['events.k8s.io', 'events'],
  ['discovery.k8s.io', 'endpointslices'],
] as const;

/** Every resource of a flattened line set, with its scope. */
const scopes = (rules: readonly PolicyRule[]): Set<string> => new Set(flattenRules(rules).map((l) => { const [g, r] = l.split('|'); return resourceScope(g!, r!); }));

describe('resourceScope', () => {
  it.each(CLUSTER_SCOPED)('%s/%s is cluster-scoped', (g, r) => expect(resourceScope(g, r)).toBe('Cluster'));
  it.each(NAMESPACED)('%s/%s is namespaced (a subresource has its resource\'s scope)', (g, r) => expect(resourceScope(g, r)).toBe('Namespaced'));
  it('refuses a resource it does not know, naming it and where to add it', () => {
    expect(() => resourceScope('example.com', 'widgets')).toThrow(/"widgets" of group "example\.com".*RESOURCE_SCOPES/);
  });
});

describe('splitByScope', () => {
  // Rules of one group each (every group/resource pair of a rule must be a real resource), the
  // core group mixing cluster-scoped nodes with namespaced pods.
  const byGroup = new Map<string, string[]>();
  for (const [g, r] of [...CLUSTER_SCOPED, ...NAMESPACED]) byGroup.set(g, [...(byGroup.get(g) ?? []), r]);
  const rule = fc.constantFrom(...byGroup.keys()).chain((group) =>
    fc.record({
      apiGroups: fc.constant(group).map((g) => [g]),
      resources: fc.subarray(byGroup.get(group)!, { minLength: 1 }),
      verbs: fc.subarray(['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'], { minLength: 1 }),
      resourceNames: fc.option(fc.subarray(['a', 'b'], { minLength: 1 }), { nil: undefined }),
    }),
  );
  it('keeps every grant, each under its own scope, and nothing more', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 6 }), (generated) => {
        const rules: PolicyRule[] = generated.map(({ resourceNames, ...r }) => (resourceNames ? { ...r, resourceNames } : r));
        const split = splitByScope(rules);
        expect([...flattenRules(split.Cluster), ...flattenRules(split.Namespaced)].sort()).toEqual(flattenRules(rules));
        expect([...scopes(split.Cluster)].every((s) => s === 'Cluster')).toBe(true);
        expect([...scopes(split.Namespaced)].every((s) => s === 'Namespaced')).toBe(true);
      }),
    );
  });
});

describe('planRbac', () => {
  const everywhere = deployRbacPlan();
  const watched = deployRbacPlan({ watchNamespace: true, selfManagedCertificates: true });
  const external = deployRbacPlan({ watchNamespace: true, selfManagedCertificates: false });

  it('every namespace watched: the ClusterRole holds every controller rule, no Role elsewhere', () => {
    expect(everywhere.watchedNamespaceRole).toEqual([]);
    expect(scopes(everywhere.clusterRole)).toEqual(new Set(['Cluster', 'Namespaced']));
  });

  it('one namespace watched: namespaced rules move to its Role, the ClusterRole keeps only cluster-scoped ones', () => {
    expect(scopes(watched.clusterRole)).toEqual(new Set(['Cluster']));
    expect(scopes(watched.watchedNamespaceRole)).toEqual(new Set(['Namespaced']));
    expect([...flattenRules(watched.clusterRole), ...flattenRules(watched.watchedNamespaceRole)].sort()).toEqual(flattenRules(everywhere.clusterRole));
    expect(flattenRules(watched.watchedNamespaceRole)).toEqual(expect.arrayContaining(['|pods|create|*', '|persistentvolumeclaims|create|*', 'apps|controllerrevisions|create|*', 'apps.kruise.io|clonesets/finalizers|update|*']));
  });

  it('self-managed certificates alone need the Secret, the webhook configurations and the CRDs', () => {
    for (const plan of [everywhere, watched]) {
      expect(flattenRules(plan.certificatesRole).every((l) => l.startsWith('|secrets|'))).toBe(true);
      expect(flattenRules(plan.certificatesClusterRole).every((l) => /^(admissionregistration|apiextensions)\.k8s\.io\|/.test(l))).toBe(true);
      expect(plan.certificatesRole).not.toEqual([]);
      expect(plan.certificatesClusterRole).not.toEqual([]);
    }
    expect(external.certificatesRole).toEqual([]);
    expect(external.certificatesClusterRole).toEqual([]);
    const everyOther = [...everywhere.clusterRole, ...everywhere.ownNamespaceRole, ...watched.watchedNamespaceRole];
    expect(flattenRules(everyOther).filter((l) => /secrets|webhookconfigurations|customresourcedefinitions/.test(l))).toEqual([]);
  });
});

describe('rbacObjects', () => {
  const names = (objects: object[]): string[] => (objects as Rbac[]).map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();

  it('with a watched namespace: a Role and RoleBinding there, bound to the manager\'s ServiceAccount', () => {
    const objects = rbacObjects({ watchNamespace: 'team-a' }) as Rbac[];
    expect(names(objects)).toEqual(
      [
        `ClusterRole//${DEPLOY_NAME}`,
        `ClusterRoleBinding//${DEPLOY_NAME}`,
        `Role/${DEPLOY_NAMESPACE}/${DEPLOY_NAME}`,
        `RoleBinding/${DEPLOY_NAMESPACE}/${DEPLOY_NAME}`,
        `ClusterRole//${DEPLOY_NAME}-certificates`,
        `ClusterRoleBinding//${DEPLOY_NAME}-certificates`,
        `Role/${DEPLOY_NAMESPACE}/${DEPLOY_NAME}-certificates`,
        `RoleBinding/${DEPLOY_NAMESPACE}/${DEPLOY_NAME}-certificates`,
        `Role/team-a/${DEPLOY_NAME}-watched-namespace`,
        `RoleBinding/team-a/${DEPLOY_NAME}-watched-namespace`,
      ].sort(),
    );
    const role = objects.find((o) => o.kind === 'Role' && o.metadata.namespace === 'team-a')!;
    expect(flattenRules(role.rules!)).toEqual(flattenRules(deployRbacPlan({ watchNamespace: true, selfManagedCertificates: true }).watchedNamespaceRole));
    const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata.namespace === 'team-a')!;
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: DEPLOY_NAME, namespace: DEPLOY_NAMESPACE }]);
  });

  it('with certificates from elsewhere: no role for the Secret, the webhook configurations or the CRDs', () => {
    const objects = rbacObjects({ selfManagedCertificates: false });
    expect(names(objects)).toEqual([`ClusterRole//${DEPLOY_NAME}`, `ClusterRoleBinding//${DEPLOY_NAME}`, `Role/${DEPLOY_NAMESPACE}/${DEPLOY_NAME}`, `RoleBinding/${DEPLOY_NAMESPACE}/${DEPLOY_NAME}`].sort());
  });
});
