// The suite's ClusterRole against OpenKruise's (test/fixtures/openkruise-v1.8.4-manager-role.yaml).
// An owner reference with blockOwnerDeletion: true is refused (403) under the apiserver's
// OwnerReferencesPermissionEnforcement admission plugin unless its writer may update the owner's
// finalizers subresource (Kubernetes docs, "Admission Controllers Reference",
// OwnerReferencesPermissionEnforcement). OpenShift turns the plugin on by default.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { deployRbacPlan } from '../../src/deploy/render.ts';
import { flattenRules, type PolicyRule } from '../../src/rbac.ts';

const openKruiseRole = parseAllDocuments(readFileSync(new URL('../fixtures/openkruise-v1.8.4-manager-role.yaml', import.meta.url), 'utf8'))
  .map((d) => d.toJS() as { kind?: string; rules?: PolicyRule[] } | null)
  .find((o) => o?.kind === 'ClusterRole')!;

/** Every kind the CloneSet controller names in a blockOwnerDeletion reference (cloneset-controller core/owner-ref.ts). */
const BLOCKING_OWNERS = [
  // A CloneSet owns its pods, PVCs, revisions and image pull jobs.
  { owner: 'CloneSet', grant: 'apps.kruise.io|clonesets/finalizers|update|*' },
  // A pod owns the PVCs handed to it under disablePVCReuse.
  { owner: 'Pod', grant: '|pods/finalizers|update|*' },
];

const ours = (): string[] => flattenRules(deployRbacPlan().clusterRole);

describe('RBAC for blockOwnerDeletion, against OpenKruise\'s ClusterRole', () => {
  it.each(BLOCKING_OWNERS)('lets the manager block the deletion of a $owner: $grant', ({ grant }) => {
    expect(ours()).toContain(grant);
  });

  it('grants the finalizers update OpenKruise grants on each kind the suite reconciles', () => {
    // A kind whose status we write is one we reconcile, so its dependents carry references to it;
    // kubebuilder grants the same <kind>/finalizers to the controller of each kind it reconciles.
    const reconciled = ours().filter((line) => /^[^|]*\|[^|]+\/status\|patch\|/.test(line)).map((line) => line.split('|').slice(0, 2).join('|').replace(/\/status$/, ''));
    const theirs = new Set(flattenRules(openKruiseRole.rules!));
    const shared = reconciled.map((r) => `${r}/finalizers|update|*`).filter((grant) => theirs.has(grant));
    expect(shared).toContain('apps.kruise.io|clonesets/finalizers|update|*');
    expect(ours()).toEqual(expect.arrayContaining(shared));
  });
});
