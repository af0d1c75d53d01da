// A CloneSet with a volumeClaimTemplate on the real node: the claim is created and bound (the
// local cluster's default StorageClass, kube-controller-manager's hostPath provisioner), the real
// container writes to it, and OpenKruise's claim rules hold: an in-place update keeps the pod and
// its claim, and a pod deleted from outside comes back with the same instance id and finds its
// claim, data included.
import { describe, expect, it } from 'vitest';
import { eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import { IMAGE_2, cloneSetScene, containerIdOf, instanceIdOf, realNodeCloneSet, type Pod } from './real-node-cloneset.ts';

interface Claim {
  metadata: { name: string; uid: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { volumeName?: string };
  status?: { phase?: string };
}

describe('a CloneSet with a volumeClaimTemplate on the real node', () => {
  const scene = cloneSetScene('in-cluster-pvc', 'data');
  const claims = async (): Promise<Claim[]> => (await getJson<{ items: Claim[] }>(['pvc', '-n', scene.ns]))?.items ?? [];
  const readMarker = (pod: Pod): Promise<string> => kubectl(['exec', '-n', scene.ns, pod.metadata.name, '--', 'cat', '/data/marker']);
  /** The one pod, its claim Bound, and the claim the pod mounts. */
  const podAndClaim = async (what: string): Promise<{ pod: Pod; claim: Claim }> => {
    const [pod] = await scene.cs.settled(1, what);
    const claimName = pod!.spec.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName;
    const claim = await eventually(`the claim ${claimName} Bound`, async () => (await claims()).find((c) => c.metadata.name === claimName && c.status?.phase === 'Bound'), { timeoutMs: 60_000 });
    return { pod: pod!, claim };
  };


  it('creates a Bound claim per pod that the real container writes to', async () => {
    await kubectl(['apply', '-n', scene.ns, '-f', '-'], realNodeCloneSet({
      name: 'data',
      replicas: 1,
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
      spec: {
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Mi' } } } }],
      },
    }));
    const { pod, claim } = await podAndClaim('1 Ready pod with its claim');
    expect(claim.metadata.name).toBe(`data-${pod.metadata.name}`);
    expect(claim.metadata.labels?.['apps.kruise.io/cloneset-instance-id']).toBe(instanceIdOf(pod));
    expect(claim.spec.volumeName).toBeTruthy();
    await kubectl(['exec', '-n', scene.ns, pod.metadata.name, '--', 'sh', '-c', 'echo kept > /data/marker']);
    expect((await readMarker(pod)).trim()).toBe('kept');
  });

  it('keeps the pod and its claim, data included, across an in-place image update', async () => {
    const before = await podAndClaim('1 Ready pod');
    await scene.cs.setContainer('image', IMAGE_2);
    const after = await eventually('the pod running the new image', async () => {
      const found = await podAndClaim('1 Ready pod on the new revision');
      return found.pod.status.containerStatuses?.[0]?.image === IMAGE_2 ? found : undefined;
    }, { timeoutMs: 120_000 });
    expect(after.pod.metadata.uid).toBe(before.pod.metadata.uid);
    expect(containerIdOf(after.pod)).not.toBe(containerIdOf(before.pod));
    expect(after.claim.metadata.uid).toBe(before.claim.metadata.uid);
    expect((await readMarker(after.pod)).trim()).toBe('kept');
  });

  it('gives a pod deleted from outside a replacement with the same instance id, which mounts the same claim', async () => {
    const before = await podAndClaim('1 Ready pod');
    await kubectl(['delete', 'pod', before.pod.metadata.name, '-n', scene.ns, '--wait=false']);
    const after = await eventually('a replacement pod', async () => {
      const found = await podAndClaim('1 Ready replacement');
      return found.pod.metadata.uid !== before.pod.metadata.uid ? found : undefined;
    }, { timeoutMs: 120_000 });
    expect(instanceIdOf(after.pod)).toBe(instanceIdOf(before.pod));
    expect(after.claim.metadata.uid).toBe(before.claim.metadata.uid);
    expect((await readMarker(after.pod)).trim()).toBe('kept');
    expect((await claims()).map((c) => c.metadata.name)).toEqual([before.claim.metadata.name]);
  });
});
