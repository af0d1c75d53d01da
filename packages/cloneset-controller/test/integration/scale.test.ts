// CloneSet scaling as a user drives it: kubectl apply, scale, delete pod, podsToDelete.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, getJson, kubectl, repoRoot } from '@cloneset-suite/local-cluster';
import { controllerInNamespace, type RunningController } from './harness.ts';

interface Pod {
  metadata: { name: string; uid: string; labels: Record<string, string>; ownerReferences?: { kind: string; name: string; controller?: boolean }[]; deletionTimestamp?: string };
  spec: { readinessGates?: { conditionType: string }[]; volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[] };
  status: { phase?: string; conditions?: { type: string; status: string }[] };
}
interface CloneSet {
  metadata: { generation: number };
  status?: Record<string, unknown> & { replicas?: number; readyReplicas?: number; availableReplicas?: number; observedGeneration?: number; updateRevision?: string; labelSelector?: string };
}

const fixture = (name: string): string => readFileSync(path.join(repoRoot, 'packages/api-types/test/fixtures', name), 'utf8');
const ready = (p: Pod): boolean => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

async function activePods(ns: string): Promise<Pod[]> {
  const list = await getJson<{ items: Pod[] }>(['pods', '-n', ns, '-l', 'app=sample']);
  return (list?.items ?? []).filter((p) => !p.metadata.deletionTimestamp);
}

describe('CloneSet scaling', () => {
  let ns: string;
  let controller: RunningController;

  controllerInNamespace('cs-scale', (s) => ({ ns, controller } = s));

  it('creates the seed sample\'s 5 pods, Ready, with ids, labels, owner and both readiness gates', async () => {
    await kubectl(['apply', '-n', ns, '-f', '-'], fixture('seed-002-cloneset-sample.yaml'));
    const pods = await eventually('5 ready pods', async () => {
      const list = await activePods(ns);
      return list.length === 5 && list.every(ready) ? list : undefined;
    }, { timeoutMs: 60_000 });
    for (const pod of pods) {
      const id = pod.metadata.labels['apps.kruise.io/cloneset-instance-id'];
      expect(pod.metadata.name).toBe(`sample-${id}`);
      expect(pod.metadata.labels['controller-revision-hash']).toMatch(/^sample-/);
      expect(pod.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'CloneSet', name: 'sample', controller: true })]);
      expect(pod.spec.readinessGates?.map((g) => g.conditionType).sort()).toEqual(['InPlaceUpdateReady', 'KruisePodReady']);
    }
    const cs = await eventually('status settled', async () => {
      const c = await getJson<CloneSet>(['clone', 'sample', '-n', ns]);
      return c?.status?.readyReplicas === 5 && c.status.availableReplicas === 5 ? c : undefined;
    });
    expect(cs.status).toMatchObject({ replicas: 5, updatedReplicas: 5, updatedReadyReplicas: 5, observedGeneration: cs.metadata.generation, labelSelector: 'app=sample' });
    expect(cs.status?.currentRevision).toBe(cs.status?.updateRevision);
  });

  it('writes nothing while the CloneSet is settled', async () => {
    const before = await controller.writes();
    // Touch the CloneSet's metadata: a reconcile runs, and must find nothing to do.
    await kubectl(['annotate', 'clone', 'sample', '-n', ns, `poke=${Date.now()}`, '--overwrite']);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await controller.writes()).toBe(before);
  });

  it('scales in and out with kubectl scale', async () => {
    await kubectl(['scale', 'clone', 'sample', '-n', ns, '--replicas=3']);
    await eventually('3 pods', async () => (await activePods(ns)).length === 3, { timeoutMs: 60_000 });
    await kubectl(['scale', 'clone', 'sample', '-n', ns, '--replicas=6']);
    await eventually('6 ready pods', async () => {
      const list = await activePods(ns);
      return list.length === 6 && list.every(ready);
    }, { timeoutMs: 60_000 });
    const ids = (await activePods(ns)).map((p) => p.metadata.labels['apps.kruise.io/cloneset-instance-id']);
    expect(new Set(ids).size).toBe(6);
  });

  it('replaces a pod deleted from outside', async () => {
    const [victim] = await activePods(ns);
    await kubectl(['delete', 'pod', victim!.metadata.name, '-n', ns, '--wait=false']);
    await eventually('6 ready pods again, without the victim', async () => {
      const list = await activePods(ns);
      return list.length === 6 && list.every(ready) && !list.some((p) => p.metadata.uid === victim!.metadata.uid);
    }, { timeoutMs: 60_000 });
  });

  it('deletes the pods named in podsToDelete and replaces them, then removes the field', async () => {
    const [a, b] = await activePods(ns);
    await kubectl(['patch', 'clone', 'sample', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { scaleStrategy: { podsToDelete: [a!.metadata.name, b!.metadata.name] } } })]);
    await eventually('both replaced', async () => {
      const list = await activePods(ns);
      const uids = new Set(list.map((p) => p.metadata.uid));
      return list.length === 6 && !uids.has(a!.metadata.uid) && !uids.has(b!.metadata.uid) && list.every(ready);
    }, { timeoutMs: 60_000 });
    // Once every listed pod is gone the field is removed, as OpenKruise omits an empty list.
    const cleaned = await eventually('podsToDelete removed', async () => {
      const cs = await getJson<{ spec: { scaleStrategy?: Record<string, unknown> } }>(['clone', 'sample', '-n', ns]);
      return cs && (cs.spec.scaleStrategy?.podsToDelete === undefined || (cs.spec.scaleStrategy.podsToDelete as string[]).length === 0) ? cs : undefined;
    });
    expect(cleaned.spec.scaleStrategy ?? {}).not.toHaveProperty('podsToDelete');
  });

  it('deletes the pod labelled apps.kruise.io/specified-delete and replaces it', async () => {
    const [victim] = await activePods(ns);
    await kubectl(['label', 'pod', victim!.metadata.name, '-n', ns, 'apps.kruise.io/specified-delete=true']);
    await eventually('victim replaced', async () => {
      const list = await activePods(ns);
      return list.length === 6 && !list.some((p) => p.metadata.uid === victim!.metadata.uid) && list.every(ready);
    }, { timeoutMs: 60_000 });
  });
});
