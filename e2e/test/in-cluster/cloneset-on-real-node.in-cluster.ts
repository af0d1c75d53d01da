// The controller-manager as users run it (the image, the Helm release, two replicas behind the
// webhook Service) driving a CloneSet whose pods are real containers on the local cluster's real
// node: create, scale, an in-place image update, a ReCreate rollout, and the leader replica
// force-deleted in the middle of a rollout. Only kubectl, as a user would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';

const RELEASE_NAMESPACE = 'cloneset-suite-system';
const LEASE = 'cloneset-suite-controller-manager';
const REAL_NODE = { label: 'cloneset-suite.io/real-node', taint: 'cloneset-suite.io/real-node' };
const IMAGE_1 = 'localhost/cloneset-suite/busybox:1';
const IMAGE_2 = 'localhost/cloneset-suite/busybox:2';
/** Seconds between a container's start and its readiness probe passing (the probe waits for a file). */
const READY_AFTER_S = 2;

interface Pod {
  metadata: { name: string; uid: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string; containers: { image: string }[] };
  status: {
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
    containerStatuses?: { containerID?: string; image: string; ready: boolean; state?: { running?: { startedAt: string } } }[];
  };
}
interface CloneSet {
  metadata: { generation: number };
  status?: { observedGeneration?: number; replicas?: number; readyReplicas?: number; updatedReadyReplicas?: number; updateRevision?: string; currentRevision?: string };
}

const isReady = (p: Pod): boolean => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const live = (pods: Pod[]): Pod[] => pods.filter((p) => !p.metadata.deletionTimestamp);

function cloneSetManifest(replicas: number): string {
  return JSON.stringify({
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'web' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          nodeSelector: { [REAL_NODE.label]: 'true' },
          tolerations: [{ key: REAL_NODE.taint, operator: 'Exists', effect: 'NoSchedule' }],
          // busybox as pid 1 ignores SIGTERM: a short grace keeps recreations quick.
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'web',
              image: IMAGE_1,
              imagePullPolicy: 'Never',
              command: ['sh', '-c', `rm -f /tmp/ready; sleep ${READY_AFTER_S}; touch /tmp/ready; exec sleep 1000000`],
              readinessProbe: { exec: { command: ['cat', '/tmp/ready'] }, periodSeconds: 1 },
            },
          ],
        },
      },
    },
  });
}

describe('a CloneSet of real containers under the in-cluster release', () => {
  let ns: { name: string; remove: () => Promise<void> };
  const pods = async (): Promise<Pod[]> => (await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', 'app=web']))?.items ?? [];
  const cloneSet = async (): Promise<CloneSet | undefined> => getJson<CloneSet>(['clone', 'web', '-n', ns.name]);
  const patch = (spec: unknown): Promise<string> => kubectl(['patch', 'clone', 'web', '-n', ns.name, '--type=merge', '-p', JSON.stringify({ spec })]);
  // A merge patch would replace the whole containers list (a CRD has no strategic merge).
  const setContainer = (field: 'image' | 'env', value: unknown): Promise<string> =>
    kubectl(['patch', 'clone', 'web', '-n', ns.name, '--type=json', '-p', JSON.stringify([{ op: 'add', path: `/spec/template/spec/containers/0/${field}`, value }])]);
  /** Waits until the CloneSet settled with `replicas` Ready pods, all at the update revision; returns them. */
  const settled = (replicas: number, what: string): Promise<Pod[]> =>
    eventually(what, async () => {
      const cs = await cloneSet();
      const list = await pods();
      const s = cs?.status;
      return s?.observedGeneration === cs?.metadata.generation &&
        s?.updatedReadyReplicas === replicas &&
        s.readyReplicas === replicas &&
        s.currentRevision === s.updateRevision &&
        list.length === replicas &&
        list.every((p) => isReady(p) && p.metadata.labels?.['controller-revision-hash'] === s.updateRevision)
        ? list
        : undefined;
    }, { timeoutMs: 120_000, intervalMs: 500 });
  const containerIds = (list: Pod[]): Map<string, string | undefined> => new Map(list.map((p) => [p.metadata.uid, p.status.containerStatuses?.[0]?.containerID]));

  beforeAll(async () => {
    ns = await createTestNamespace('in-cluster');
  });
  afterAll(async () => {
    await ns?.remove();
  });

  it('creates pods that run on the real node and turn Ready by their readinessProbe', async () => {
    await kubectl(['apply', '-n', ns.name, '-f', '-'], cloneSetManifest(2));
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
    expect(await kubectl(['exec', '-n', ns.name, list[0]!.metadata.name, '--', 'cat', '/tmp/ready'])).toBe('');
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
    const holder = async (): Promise<string> => {
      const lease = await getJson<{ spec?: { holderIdentity?: string } }>(['lease', LEASE, '-n', RELEASE_NAMESPACE]);
      // The identity is <pod name>_<random>.
      return (lease?.spec?.holderIdentity ?? '').split('_')[0] ?? '';
    };
    const leader = await holder();
    expect(leader).toMatch(/^cloneset-suite-controller-manager-/);
    const before = await settled(3, '3 Ready pods');
    await setContainer('env', [{ name: 'ROLLOUT', value: '2' }]);
    // Mid-rollout: the first pod is being replaced.
    await eventually('the rollout under way', async () => (await pods()).some((p) => p.metadata.deletionTimestamp !== undefined || !before.some((b) => b.metadata.uid === p.metadata.uid)), { timeoutMs: 60_000, intervalMs: 200 });
    await kubectl(['delete', 'pod', leader, '-n', RELEASE_NAMESPACE, '--force', '--grace-period=0']);

    // Watch the pods while the rollout goes on: never more live pods than replicas (maxSurge 0),
    // never two live pods with one instance id.
    let most = 0;
    const duplicates: string[] = [];
    let done = false;
    const watching = (async () => {
      while (!done) {
        const list = live(await pods());
        most = Math.max(most, list.length);
        const ids = list.map((p) => p.metadata.labels?.['apps.kruise.io/cloneset-instance-id'] ?? p.metadata.name);
        if (new Set(ids).size !== ids.length) duplicates.push(ids.join(','));
        await new Promise((r) => setTimeout(r, 300));
      }
    })();
    try {
      const newLeader = await eventually('another replica holding the lease', async () => {
        const h = await holder();
        return h !== '' && h !== leader ? h : undefined;
      }, { timeoutMs: 90_000, intervalMs: 500 });
      expect(newLeader).not.toBe(leader);
      const after = await settled(3, 'the rollout completed under the new leader');
      const uidsBefore = new Set(before.map((p) => p.metadata.uid));
      expect(after.filter((p) => uidsBefore.has(p.metadata.uid))).toEqual([]);
    } finally {
      done = true;
      await watching;
    }
    expect(duplicates).toEqual([]);
    expect(most).toBeLessThanOrEqual(3);
    // The release heals: the Deployment replaced the deleted replica.
    await kubectl(['rollout', 'status', 'deployment/cloneset-suite-controller-manager', '-n', RELEASE_NAMESPACE, '--timeout=120s']);
  });
});
