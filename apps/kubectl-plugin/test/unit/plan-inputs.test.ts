import type { CloneSet } from '@cloneset-suite/api-types';
import { FEATURE_GATE_DEFAULTS } from '@cloneset-suite/cloneset-controller';
import type { V1ControllerRevision, V1Node, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { reconcileInputOf, type ClusterReads } from '@cloneset-suite/cloneset-controller';
import { NOW, UID, cloneSet, pod, revisionOf } from './plan-fixtures.ts';

const managedFields = [{ manager: 'kubectl', operation: 'Update' }];
const cs = { ...cloneSet(), metadata: { ...cloneSet().metadata, managedFields } } as unknown as CloneSet;
const revision = revisionOf(cloneSet());
const rev = revision.metadata!.name!;

function claim(name: string, o: { owner?: string; deleting?: boolean } = {}): V1PersistentVolumeClaim {
  return {
    metadata: {
      name,
      labels: { 'apps.kruise.io/cloneset-instance-id': name.slice(-5) },
      ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid: o.owner ?? UID }],
      ...(o.deleting ? { deletionTimestamp: new Date(NOW) } : {}),
    },
  };
}

const foreignRevision: V1ControllerRevision = { ...revision, metadata: { ...revision.metadata, name: 'other-1', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'other', uid: 'uid-other' }] } };
const unselectedRevision: V1ControllerRevision = { ...revision, metadata: { ...revision.metadata, name: 'web-unselected', labels: { app: 'api' } } };
const node: V1Node = { metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'a' } } };

const reads: ClusterReads = {
  cs,
  pods: [
    { ...pod('web-aaaaa', { revision: rev }), metadata: { ...pod('web-aaaaa', { revision: rev }).metadata, managedFields } },
    pod('web-ddddd', { revision: rev, deleting: true }),
    pod('api-bbbbb', { revision: rev, ownerUid: 'uid-api' }),
  ],
  pvcs: [claim('data-web-aaaaa'), claim('data-web-ccccc', { deleting: true }), claim('data-api-bbbbb', { owner: 'uid-api' })],
  revisions: [revision, foreignRevision, unselectedRevision],
  nodes: [node],
  imagePullJobCrdPresent: true,
};
const settings = { gates: { ...FEATURE_GATE_DEFAULTS, CloneSetShortHash: true }, nowMs: NOW, random: () => 0.25 };

describe('reconcileInputOf: the controller cache view of what plan read', () => {
  const input = reconcileInputOf(reads, settings);

  it('keeps the pods the CloneSet owns, terminating ones included', () => {
    expect(input.pods.map((p) => p.metadata?.name)).toEqual(['web-aaaaa', 'web-ddddd']);
  });

  it('looks up any pod of the namespace by name', () => {
    expect(input.podNamed?.('api-bbbbb')?.metadata?.name).toBe('api-bbbbb');
    expect(input.podNamed?.('web-zzzzz')).toBeUndefined();
  });

  it('keeps owned claims that are not being deleted', () => {
    expect(input.pvcs.map((c) => c.metadata?.name)).toEqual(['data-web-aaaaa']);
  });

  it('keeps owned revisions the selector matches, and knows every revision name of the namespace', () => {
    expect(input.revisions.map((r) => r.metadata?.name)).toEqual([rev]);
    expect(input.revisionNameTaken?.('other-1')).toBe(true);
    expect(input.revisionNameTaken?.('web-unselected')).toBe(true);
    expect(input.revisionNameTaken?.('web-free')).toBe(false);
  });

  it('drops managedFields as the caches do', () => {
    expect(input.cs.metadata).not.toHaveProperty('managedFields');
    expect(input.pods[0]!.metadata).not.toHaveProperty('managedFields');
  });

  it('passes the node labels, gates, clock, random source and CRD answer through', () => {
    expect(input.nodeLabels?.('node-1')).toEqual({ 'topology.kubernetes.io/zone': 'a' });
    expect(input.nodeLabels?.('node-2')).toBeUndefined();
    expect(input).toMatchObject({ gates: settings.gates, nowMs: NOW, random: settings.random, imagePullJobCrdPresent: true });
  });

  it('plans without node labels when nodes could not be read', () => {
    expect(reconcileInputOf({ ...reads, nodes: undefined }, settings).nodeLabels).toBeUndefined();
  });

  it('matches nothing with a selector it cannot compile, as the controller', () => {
    const bad = { ...cs, spec: { ...cs.spec, selector: { matchExpressions: [{ key: 'app', operator: 'Bogus', values: [] }] } } } as unknown as CloneSet;
    expect(reconcileInputOf({ ...reads, cs: bad }, settings).revisions).toEqual([]);
  });
});
