// A user's day with CloneSets, only through kubectl and the shipped examples, against a running
// controller-manager: create, watch it settle, change the image (in place), scale, get refused
// for a bad spec, delete. Cluster-agnostic: the local cluster, or E2E_KUBECONFIG.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl, repoRoot } from '@cloneset-suite/local-cluster';
import { ensureManager, type E2EManager } from './manager.ts';

interface Pod {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  spec: { containers: { image: string }[] };
  status: { conditions?: { type: string; status: string }[]; containerStatuses?: { restartCount: number; image: string }[] };
}
interface CloneSet {
  status?: { replicas?: number; readyReplicas?: number; updatedReadyReplicas?: number; updateRevision?: string; currentRevision?: string };
}

const example = (name: string): string => readFileSync(path.join(repoRoot, 'examples', name), 'utf8');
const isReady = (p: Pod): boolean => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

describe('CloneSet end to end', () => {
  let manager: E2EManager;
  let ns: { name: string; remove: () => Promise<void> };
  const pods = async (): Promise<Pod[]> =>
    ((await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', 'app=sample']))?.items ?? []).filter((p) => !p.metadata.deletionTimestamp);
  const cloneSet = async (): Promise<CloneSet | undefined> => getJson<CloneSet>(['clone', 'sample', '-n', ns.name]);

  beforeAll(async () => {
    ns = await createTestNamespace('e2e');
    manager = await ensureManager(ns.name);
  });
  afterAll(async () => {
    await manager?.stop();
    await ns?.remove();
  });

  it('runs the basic example: 3 Ready pods and the printer columns', async () => {
    await kubectl(['apply', '-n', ns.name, '-f', '-'], example('cloneset.yaml'));
    await eventually('3 ready replicas', async () => (await cloneSet())?.status?.readyReplicas === 3, { timeoutMs: 90_000 });
    const table = await kubectl(['get', 'clone', 'sample', '-n', ns.name]);
    const [header, row] = table.trim().split('\n');
    expect(header!.split(/\s+/)).toEqual(['NAME', 'DESIRED', 'UPDATED', 'UPDATED_READY', 'UPDATED_AVAILABLE', 'READY', 'TOTAL', 'AGE']);
    expect(row!.split(/\s+/).slice(0, 7)).toEqual(['sample', '3', '3', '3', '3', '3', '3']);
  });

  it('changes the image in place: same pods, restarted containers, new revision', async () => {
    const before = await pods();
    const revisionBefore = (await cloneSet())?.status?.updateRevision;
    await kubectl(['patch', 'clone', 'sample', '-n', ns.name, '--type=merge', '-p', JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28-alpine' }] } } } })]);
    const after = await eventually('every pod on the new image and Ready', async () => {
      const cs = await cloneSet();
      const list = await pods();
      return cs?.status?.updatedReadyReplicas === 3 &&
        cs.status.currentRevision === cs.status.updateRevision &&
        list.length === 3 &&
        list.every((p) => isReady(p) && p.status.containerStatuses?.[0]?.image === 'nginx:1.28-alpine')
        ? list
        : undefined;
    }, { timeoutMs: 120_000 });
    expect(after.map((p) => p.metadata.uid).sort()).toEqual(before.map((p) => p.metadata.uid).sort());
    expect(after.every((p) => (p.status.containerStatuses?.[0]?.restartCount ?? 0) >= 1)).toBe(true);
    expect((await cloneSet())?.status?.updateRevision).not.toBe(revisionBefore);
  });

  it('scales with kubectl scale', async () => {
    await kubectl(['scale', 'clone', 'sample', '-n', ns.name, '--replicas=5']);
    await eventually('5 ready replicas', async () => (await cloneSet())?.status?.readyReplicas === 5, { timeoutMs: 90_000 });
    expect(await pods()).toHaveLength(5);
  });

  it('refuses, through the admission webhook, a podsToDelete entry naming no pod', async () => {
    const err = await kubectl(['patch', 'clone', 'sample', '-n', ns.name, '--type=merge', '-p', '{"spec":{"scaleStrategy":{"podsToDelete":["no-such-pod"]}}}']).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toContain('spec.scaleStrategy.podsToDelete');
  });

  it('deletes the CloneSet and its pods', async () => {
    await kubectl(['delete', 'clone', 'sample', '-n', ns.name, '--wait=true', '--timeout=60s']);
    await eventually('pods garbage-collected', async () => (await pods()).length === 0, { timeoutMs: 90_000 });
  });
});
