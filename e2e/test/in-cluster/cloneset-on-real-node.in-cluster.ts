// The controller-manager as users run it (the image, the Helm release, two replicas behind the
// webhook Service) driving a CloneSet whose pods are real containers on the local cluster's real
// node: create, scale, an in-place image update, a ReCreate rollout, and the leader replica
// force-deleted in the middle of a rollout. Only kubectl, as a user would.
import { describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { IMAGE_2, cloneSetScene, MANAGER_DEPLOYMENT, READY_AFTER_S, RELEASE_NAMESPACE, containerIdOf, leaseHolder, realNodeCloneSet, watchForDuplicates, type Pod } from './real-node-cloneset.ts';

describe('a CloneSet of real containers under the in-cluster release', () => {
  const scene = cloneSetScene('in-cluster', 'web');
  const pods = (): Promise<Pod[]> => scene.cs.pods();
  const patch = (spec: unknown): Promise<string> => scene.cs.patch(spec);
  const setContainer = (field: 'image' | 'env', value: unknown): Promise<string> => scene.cs.setContainer(field, value);
  const settled = (replicas: number, what: string): Promise<Pod[]> => scene.cs.settled(replicas, what);
  const containerIds = (list: Pod[]): Map<string, string | undefined> => new Map(list.map((p) => [p.metadata.uid, containerIdOf(p)]));


  it('creates pods that run on the real node and turn Ready by their readinessProbe', async () => {
    await kubectl(['apply', '-n', scene.ns, '-f', '-'], realNodeCloneSet({ name: 'web', replicas: 2 }));
    const list = await settled(2, '2 Ready pods');
    for (const pod of list) {
      expect(pod.spec.nodeName).toBe('real-node-0');
      const container = pod.status.containerStatuses?.[0];
      expect(container?.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
      const started = Date.parse(container?.state?.running?.startedAt ?? '');
      const ready = Date.parse(pod.status.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '');
      // Ready only once the probe found the file the container writes READY_AFTER_S after it starts.
      expect(ready - started).toBeGreaterThanOrEqual((READY_AFTER_S - 1) * 1000);
    }
    // The container really runs: its output is the kubelet's.
    expect(await kubectl(['exec', '-n', scene.ns, list[0]!.metadata.name, '--', 'cat', '/tmp/ready'])).toBe('');
  });

  it('scales out and in', async () => {
    await patch({ replicas: 3 });
    await settled(3, '3 Ready pods');
    await patch({ replicas: 2 });
    await settled(2, '2 Ready pods after scaling in');
    await patch({ replicas: 3 });
    await settled(3, '3 Ready pods again');
  });

  it('updates the image in place: the same pods, each container re-created from the new image', async () => {
    const before = await settled(3, '3 Ready pods');
    await setContainer('image', IMAGE_2);
    const after = await eventually('every pod running the new image', async () => {
      const list = await settled(3, '3 Ready pods on the new revision');
      return list.every((p) => p.status.containerStatuses?.[0]?.image === IMAGE_2) ? list : undefined;
    }, { timeoutMs: 150_000 });
    expect(new Set(after.map((p) => p.metadata.uid))).toEqual(new Set(before.map((p) => p.metadata.uid)));
    const idsBefore = containerIds(before);
    for (const [uid, id] of containerIds(after)) {
      expect(id).toMatch(/^containerd:\/\//);
      expect(id).not.toBe(idsBefore.get(uid));
    }
  });

  it('rolls out by re-creating every pod under ReCreate', async () => {
    const before = await settled(3, '3 Ready pods');
    await patch({ updateStrategy: { type: 'ReCreate' } });
    await setContainer('env', [{ name: 'ROLLOUT', value: '1' }]);
    const after = await settled(3, '3 Ready re-created pods');
    const uidsBefore = new Set(before.map((p) => p.metadata.uid));
    expect(after.filter((p) => uidsBefore.has(p.metadata.uid))).toEqual([]);
  });

  it('completes a rollout whose leader replica is force-deleted in the middle: the other takes over, no pod duplicated', async () => {
    const leader = await leaseHolder();
    expect(leader).toMatch(/^cloneset-suite-controller-manager-/);
    const before = await settled(3, '3 Ready pods');
    await setContainer('env', [{ name: 'ROLLOUT', value: '2' }]);
    // Mid-rollout: the first pod is being replaced.
    await eventually('the rollout under way', async () => (await pods()).some((p) => p.metadata.deletionTimestamp !== undefined || !before.some((b) => b.metadata.uid === p.metadata.uid)), { timeoutMs: 60_000, intervalMs: 200 });
    await kubectl(['delete', 'pod', leader, '-n', RELEASE_NAMESPACE, '--force', '--grace-period=0']);

    // Watch the pods while the rollout goes on: never more live pods than replicas (maxSurge 0),
    // never two live pods with one instance id.
    const watch = watchForDuplicates(pods);
    let seen: { most: number; duplicates: string[] } | undefined;
    try {
      const newLeader = await eventually('another replica holding the lease', async () => {
        const h = await leaseHolder();
        return h !== '' && h !== leader ? h : undefined;
      }, { timeoutMs: 90_000, intervalMs: 500 });
      expect(newLeader).not.toBe(leader);
      const after = await settled(3, 'the rollout completed under the new leader');
      const uidsBefore = new Set(before.map((p) => p.metadata.uid));
      expect(after.filter((p) => uidsBefore.has(p.metadata.uid))).toEqual([]);
    } finally {
      seen = await watch.stop();
    }
    expect(seen.duplicates).toEqual([]);
    expect(seen.most).toBeLessThanOrEqual(3);
    // The release heals: the Deployment replaced the deleted replica.
    await kubectl(['rollout', 'status', `deployment/${MANAGER_DEPLOYMENT}`, '-n', RELEASE_NAMESPACE, '--timeout=120s']);
  });
});
