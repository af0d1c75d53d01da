// The deploy:local cluster's kube-apiserver runs OwnerReferencesPermissionEnforcement (on by
// default in OpenShift): setting blockOwnerDeletion on an owner reference needs update on the
// owner's finalizers subresource. The in-cluster manager creates its pods with it, and the same
// writes by an account holding the manager's ClusterRole without clonesets/finalizers (or
// pods/finalizers, for claims a pod owns) are refused with 403: an RBAC gap shows.
import { afterAll, describe, expect, it } from 'vitest';
import { getJson, kubectl } from '@cloneset-suite/local-cluster';
import { MANAGER_DEPLOYMENT, cloneSetScene, RELEASE_NAMESPACE, realNodeCloneSet, type Pod } from './real-node-cloneset.ts';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
}

const FINALIZER_SUBRESOURCES = ['clonesets/finalizers', 'pods/finalizers'];

/** The rules without one resource. */
const without = (rules: Rule[], resource: string): Rule[] =>
  rules.map((r) => ({ ...r, resources: (r.resources ?? []).filter((res) => res !== resource) })).filter((r) => r.resources.length > 0);

describe('owner references under OwnerReferencesPermissionEnforcement', () => {
  const scene = cloneSetScene('in-cluster-owners', 'owned');
  const clusterRoles: string[] = [];
  const account = (name: string): string => `system:serviceaccount:${scene.ns}:${name}`;

  afterAll(async () => {
    for (const role of clusterRoles) await kubectl(['delete', 'clusterrole', role, '--ignore-not-found']);
  });

  it('lets the in-cluster manager create pods that block their CloneSet\'s deletion', async () => {
    await kubectl(['apply', '-n', scene.ns, '-f', '-'], realNodeCloneSet({ name: 'owned', replicas: 1 }));
    const [pod] = await scene.cs.settled(1, '1 Ready pod');
    expect(pod!.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'CloneSet', name: 'owned', controller: true, blockOwnerDeletion: true })]);
    const manager = `system:serviceaccount:${RELEASE_NAMESPACE}:${MANAGER_DEPLOYMENT}`;
    for (const resource of ['clonesets.apps.kruise.io', 'pods']) {
      expect((await kubectl(['auth', 'can-i', 'update', resource, '--subresource=finalizers', '--as', manager, '-n', scene.ns])).trim()).toBe('yes');
    }
  });

  it('refuses the same owner references, 403, to the manager\'s rules less the owner\'s finalizers subresource', async () => {
    const managerRole = await getJson<{ rules: Rule[] }>(['clusterrole', MANAGER_DEPLOYMENT]);
    expect(managerRole?.rules.flatMap((r) => r.resources ?? [])).toEqual(expect.arrayContaining(FINALIZER_SUBRESOURCES));
    // Accounts in the test namespace: the manager's rules, and the same less one finalizers subresource.
    const accounts = {
      full: managerRole!.rules,
      'no-clonesets-finalizers': without(managerRole!.rules, 'clonesets/finalizers'),
      'no-pods-finalizers': without(managerRole!.rules, 'pods/finalizers'),
    };
    for (const [name, rules] of Object.entries(accounts)) {
      const role = `${scene.ns}-${name}`;
      clusterRoles.push(role);
      await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules }));
      await kubectl(['create', 'serviceaccount', name, '-n', scene.ns]);
      await kubectl(['create', 'rolebinding', name, '-n', scene.ns, `--clusterrole=${role}`, `--serviceaccount=${scene.ns}:${name}`]);
    }
    const cloneSet = await getJson<{ metadata: { uid: string } }>(['clone', 'owned', '-n', scene.ns]);
    const [pod] = await scene.cs.pods();
    const ownedBy = (kind: string, name: string, uid: string) => [{ apiVersion: kind === 'CloneSet' ? 'apps.kruise.io/v1alpha1' : 'v1', kind, name, uid, controller: true, blockOwnerDeletion: true }];
    const writes = [
      {
        owner: 'clonesets',
        object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'extra', ownerReferences: ownedBy('CloneSet', 'owned', cloneSet!.metadata.uid) }, spec: { containers: [{ name: 'c', image: 'none' }] } },
      },
      {
        owner: 'pods',
        object: {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'extra', ownerReferences: ownedBy('Pod', (pod as Pod).metadata.name, (pod as Pod).metadata.uid) },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } },
        },
      },
    ];
    for (const { owner, object } of writes) {
      // A server-side dry run goes through admission and stores nothing.
      const create = (as: string): Promise<string> => kubectl(['create', '--dry-run=server', '-n', scene.ns, '--as', account(as), '-f', '-'], JSON.stringify(object));
      await expect(create('full')).resolves.toContain('(server dry run)');
      await expect(create(`no-${owner}-finalizers`)).rejects.toThrow(/\(Forbidden\).*cannot set blockOwnerDeletion/);
      // Only the owner's finalizers matter.
      await expect(create(`no-${owner === 'pods' ? 'clonesets' : 'pods'}-finalizers`)).resolves.toContain('(server dry run)');
    }
  });
});
