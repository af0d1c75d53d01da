// `helm upgrade` of the release to a new image tag in the middle of a CloneSet rollout: both
// manager replicas are replaced (leader election hands the Lease over), no pod is duplicated, and
// the rollout completes where its partition says.
import { describe, expect, it } from 'vitest';
import { eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import { installRelease, retagImage } from '@cloneset-suite/local-cluster/deploy';
import { IMAGE_2, cloneSetScene, MANAGER_DEPLOYMENT, RELEASE_NAMESPACE, leaseHolder, live, realNodeCloneSet, watchForDuplicates, type Pod } from './real-node-cloneset.ts';

const REPLICAS = 4;
const PARTITION = 1;

interface Deployment {
  spec: { template: { spec: { containers: { image: string }[] } } };
}

describe('helm upgrade of the release in the middle of a CloneSet rollout', () => {
  const scene = cloneSetScene('in-cluster-upgrade', 'rolling');
  const managerPods = async (): Promise<Pod[]> =>
    live((await getJson<{ items: Pod[] }>(['pods', '-n', RELEASE_NAMESPACE, '-l', 'app.kubernetes.io/name=cloneset-suite']))?.items ?? []);


  it('replaces both manager replicas with the new tag while the rollout goes on to its partition', async () => {
    // minReadySeconds keeps each step of the rollout a few seconds long, so it spans the upgrade.
    await kubectl(['apply', '-n', scene.ns, '-f', '-'], realNodeCloneSet({ name: 'rolling', replicas: REPLICAS, spec: { minReadySeconds: 5 } }));
    const before = await scene.cs.settled(REPLICAS, `${REPLICAS} Ready pods`);
    const deployment = await getJson<Deployment>(['deployment', MANAGER_DEPLOYMENT, '-n', RELEASE_NAMESPACE]);
    const oldImage = deployment!.spec.template.spec.containers[0]!.image;
    const oldManagers = new Set((await managerPods()).map((p) => p.metadata.uid));
    expect(oldManagers.size).toBe(2);
    const newImage = await retagImage(oldImage, `${oldImage.slice(oldImage.lastIndexOf(':') + 1)}-upgraded`);

    await scene.cs.patch({ updateStrategy: { partition: PARTITION } });
    await scene.cs.setContainer('image', IMAGE_2);
    await eventually('the rollout under way', async () => (await scene.cs.pods()).some((p) => p.spec.containers[0]?.image === IMAGE_2), { timeoutMs: 60_000, intervalMs: 200 });
    const watch = watchForDuplicates(() => scene.cs.pods());
    let seen: { most: number; duplicates: string[] } | undefined;
    try {
      expect((await scene.cs.cloneSet())?.status?.updatedReadyReplicas ?? 0).toBeLessThan(REPLICAS - PARTITION);
      await installRelease(newImage, { wait: false });
      await kubectl(['rollout', 'status', `deployment/${MANAGER_DEPLOYMENT}`, '-n', RELEASE_NAMESPACE, '--timeout=180s'], undefined);
      const after = await scene.cs.settled(REPLICAS, `${REPLICAS - PARTITION} of ${REPLICAS} pods updated (partition ${PARTITION})`, REPLICAS - PARTITION);
      expect(new Set(after.map((p) => p.metadata.uid))).toEqual(new Set(before.map((p) => p.metadata.uid)));
    } finally {
      seen = await watch.stop();
    }
    expect(seen.duplicates).toEqual([]);
    expect(seen.most).toBeLessThanOrEqual(REPLICAS);

    const managers = await eventually('2 Ready manager replicas of the new tag', async () => {
      const list = await managerPods();
      return list.length === 2 && list.every((p) => p.spec.containers[0]?.image === newImage && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) ? list : undefined;
    }, { timeoutMs: 60_000 });
    expect(managers.filter((p) => oldManagers.has(p.metadata.uid))).toEqual([]);
    const holder = await eventually('a new replica holding the Lease', async () => {
      const h = await leaseHolder();
      return managers.some((p) => p.metadata.name === h) ? h : undefined;
    }, { timeoutMs: 60_000 });
    expect(holder).toMatch(/^cloneset-suite-controller-manager-/);
    // The partition holds under the new managers: the last pod stays on the old image.
    await new Promise((r) => setTimeout(r, 5_000));
    const held = await scene.cs.settled(REPLICAS, 'the partition still held', REPLICAS - PARTITION);
    expect(held.filter((p) => p.spec.containers[0]?.image !== IMAGE_2)).toHaveLength(PARTITION);
  });
});
