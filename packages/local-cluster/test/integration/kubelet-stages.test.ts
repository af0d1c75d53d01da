// Proves the local cluster is real and its simulated kubelet behaves as the suite needs:
// Ready follows readiness gates (Pod Ready++), in-place image changes restart containers,
// deletion honours finalizers, PVCs bind, nodes are zoned and untainted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl } from '../../src/index.ts';

interface Condition { type: string; status: string; reason?: string; message?: string }
interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  restartCount: number;
  state: Record<string, { reason?: string; containerID?: string }>;
  lastState?: { terminated?: { containerID?: string } };
}
interface Pod {
  metadata: { name: string; deletionTimestamp?: string; finalizers?: string[] };
  spec: { nodeName?: string };
  status: { phase?: string; conditions?: Condition[]; containerStatuses?: ContainerStatus[]; podIP?: string; hostIP?: string };
}

const GATE = 'cloneset-suite.io/test-gate';
const condition = (pod: Pod | undefined, type: string): Condition | undefined => pod?.status.conditions?.find((c) => c.type === type);

interface PodExtra { annotations?: Record<string, string>; finalizers?: string[]; gate?: boolean; volume?: string; mainImage?: string; hostNetwork?: boolean }

function podManifest(name: string, ns: string, extra: PodExtra = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, annotations: extra.annotations ?? {}, finalizers: extra.finalizers ?? [] },
    spec: {
      readinessGates: extra.gate === false ? [] : [{ conditionType: GATE }],
      containers: [
        {
          name: 'main',
          image: extra.mainImage ?? 'nginx:1.25',
          ...(extra.volume ? { volumeMounts: [{ name: 'data', mountPath: '/data' }] } : {}),
          ...(extra.hostNetwork ? { ports: [{ containerPort: 80 }] } : {}),
        },
        { name: 'sidecar', image: 'busybox:1.36' },
      ],
      ...(extra.volume ? { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: extra.volume } }] } : {}),
      ...(extra.hostNetwork ? { hostNetwork: true } : {}),
    },
  });
}

const CONTAINER_ID = /^containerd:\/\/[0-9a-f]{64}$/;
const statusOf = (pod: Pod, name: string): ContainerStatus => pod.status.containerStatuses!.find((c) => c.name === name)!;
const readyPod = (ns: string, name: string): Promise<Pod> =>
  eventually(`${name} Ready`, async () => {
    const pod = await getJson<Pod>(['pod', name, '-n', ns]);
    return condition(pod, 'Ready')?.status === 'True' ? pod : undefined;
  }, { timeoutMs: 30_000 });
/** The pod once `container` runs `image` again and every container is ready. */
const restartedPod = (ns: string, name: string, container: string, image: string): Promise<Pod> =>
  eventually(`${name}: ${container} restarted on ${image}`, async () => {
    const pod = await getJson<Pod>(['pod', name, '-n', ns]);
    return pod && statusOf(pod, container)?.image === image && condition(pod, 'Ready')?.status === 'True' ? pod : undefined;
  }, { timeoutMs: 30_000 });

const setGate = (ns: string, pod: string, status: 'True' | 'False') =>
  kubectl(['patch', 'pod', pod, '-n', ns, '--subresource=status', '--type=strategic', '-p', JSON.stringify({ status: { conditions: [{ type: GATE, status }] } })]);

describe('local cluster', () => {
  let ns: string;
  let removeNs: () => Promise<void>;
  beforeAll(async () => {
    ({ name: ns, remove: removeNs } = await createTestNamespace('stages'));
  });
  afterAll(async () => {
    await removeNs();
  });

  it('has at least 6 Ready, untainted kwok nodes over 3 zones', async () => {
    const nodes = await getJson<{ items: { metadata: { labels: Record<string, string> }; spec: { taints?: unknown[] }; status: { conditions: Condition[] } }[] }>(['nodes']);
    const ready = nodes!.items.filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'));
    expect(ready.length).toBeGreaterThanOrEqual(6);
    expect(new Set(ready.map((n) => n.metadata.labels['topology.kubernetes.io/zone'])).size).toBe(3);
    expect(ready.flatMap((n) => n.spec.taints ?? [])).toEqual([]);
  });

  it('keeps a pod not Ready until its readiness gate is True, and follows the gate afterwards', async () => {
    await kubectl(['apply', '-f', '-'], podManifest('gated', ns));
    const running = await eventually('gated pod running with ready containers', async () => {
      const pod = await getJson<Pod>(['pod', 'gated', '-n', ns]);
      return pod?.status.phase === 'Running' && condition(pod, 'ContainersReady')?.status === 'True' ? pod : undefined;
    });
    expect(running.spec.nodeName).toMatch(/^kwok-node-/);
    expect(condition(running, 'Ready')).toMatchObject({ status: 'False', reason: 'ReadinessGatesNotReady' });
    expect(condition(running, 'Ready')?.message).toContain(`corresponding condition of pod readiness gate "${GATE}" does not exist`);
    expect(condition(running, GATE)).toBeUndefined(); // kwok's stock stages would have set it True

    await setGate(ns, 'gated', 'True');
    await eventually('Ready after the gate turned True', async () => condition(await getJson<Pod>(['pod', 'gated', '-n', ns]), 'Ready')?.status === 'True');

    await setGate(ns, 'gated', 'False');
    const notReady = await eventually('not Ready after the gate turned False', async () => {
      const pod = await getJson<Pod>(['pod', 'gated', '-n', ns]);
      return condition(pod, 'Ready')?.status === 'False' ? pod : undefined;
    });
    expect(condition(notReady, 'Ready')?.message).toContain(`the status of pod readiness gate "${GATE}" is not "True", but False`);
    await setGate(ns, 'gated', 'True');
    await eventually('Ready again', async () => condition(await getJson<Pod>(['pod', 'gated', '-n', ns]), 'Ready')?.status === 'True');
  });

  it('restarts only the changed container on an in-place image change', async () => {
    const before = (await getJson<Pod>(['pod', 'gated', '-n', ns]))!;
    const mainBefore = before.status.containerStatuses!.find((c) => c.name === 'main')!;
    const sidecarBefore = before.status.containerStatuses!.find((c) => c.name === 'sidecar')!;
    await kubectl(['set', 'image', 'pod/gated', '-n', ns, 'main=nginx:1.27']);
    // The restart is visible as not-ready first, then ready again with the new image.
    const restarted = await eventually('main restarted with the new image', async () => {
      const pod = await getJson<Pod>(['pod', 'gated', '-n', ns]);
      const main = pod?.status.containerStatuses?.find((c) => c.name === 'main');
      return main?.image === 'nginx:1.27' ? pod : undefined;
    });
    const mainRestarted = restarted.status.containerStatuses!.find((c) => c.name === 'main')!;
    expect(mainRestarted.restartCount).toBe(mainBefore.restartCount + 1);
    expect(mainRestarted.imageID).not.toBe(mainBefore.imageID);
    const ready = await eventually('Ready again after the restart', async () => {
      const pod = await getJson<Pod>(['pod', 'gated', '-n', ns]);
      return condition(pod, 'Ready')?.status === 'True' ? pod : undefined;
    });
    const sidecarAfter = ready.status.containerStatuses!.find((c) => c.name === 'sidecar')!;
    expect(sidecarAfter.restartCount).toBe(sidecarBefore.restartCount);
    expect(sidecarAfter.imageID).toBe(sidecarBefore.imageID);
    expect(ready.status.containerStatuses!.every((c) => c.ready)).toBe(true);
  });

  it('gives each started container a containerd containerID, a new one on every restart, and an imageID of its image', async () => {
    await kubectl(['apply', '-f', '-'], podManifest('ids', ns, { gate: false }));
    const before = await readyPod(ns, 'ids');
    const [main, sidecar] = [statusOf(before, 'main'), statusOf(before, 'sidecar')];
    expect(main.containerID).toMatch(CONTAINER_ID);
    expect(sidecar.containerID).toMatch(CONTAINER_ID);
    expect(main.containerID).not.toBe(sidecar.containerID);
    // As a kubelet on containerd reports it: the repository in full, and a digest.
    expect(main.imageID).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    expect(sidecar.imageID).toMatch(/^docker\.io\/library\/busybox@sha256:[0-9a-f]{64}$/);

    await kubectl(['set', 'image', 'pod/ids', '-n', ns, 'main=nginx:1.27']);
    const after = await restartedPod(ns, 'ids', 'main', 'nginx:1.27');
    const mainAfter = statusOf(after, 'main');
    expect(mainAfter.containerID).toMatch(CONTAINER_ID);
    expect(mainAfter.containerID).not.toBe(main.containerID);
    expect(mainAfter.lastState?.terminated?.containerID).toBe(main.containerID);
    expect(mainAfter.imageID).not.toBe(main.imageID); // another tag, another image
    expect(statusOf(after, 'sidecar')).toMatchObject({ containerID: sidecar.containerID, imageID: sidecar.imageID, restartCount: sidecar.restartCount });
  });

  it('keeps the imageID when the new tag names the same image (nginx:alpine and nginx:mainline-alpine, or pairs a pod declares)', async () => {
    await kubectl(['apply', '-f', '-'], podManifest('same-image', ns, { gate: false, mainImage: 'nginx:alpine', annotations: { 'sim.cloneset-suite.io/same-image': 'busybox:1.36.1=busybox:1.36' } }));
    const before = await readyPod(ns, 'same-image');
    // The short name and the full one are one repository.
    await kubectl(['set', 'image', 'pod/same-image', '-n', ns, 'main=docker.io/library/nginx:mainline-alpine', 'sidecar=busybox:1.36.1']);
    const after = await eventually('both containers restarted and ready', async () => {
      const pod = await getJson<Pod>(['pod', 'same-image', '-n', ns]);
      return pod && statusOf(pod, 'sidecar')?.image === 'busybox:1.36.1' && statusOf(pod, 'main')?.image === 'docker.io/library/nginx:mainline-alpine' && condition(pod, 'Ready')?.status === 'True' ? pod : undefined;
    }, { timeoutMs: 30_000 });
    for (const name of ['main', 'sidecar']) {
      const [was, now] = [statusOf(before, name), statusOf(after, name)];
      expect(now.imageID, name).toBe(was.imageID);
      expect(now.containerID, name).not.toBe(was.containerID);
      expect(now.restartCount, name).toBe(was.restartCount + 1);
    }
  });

  it('starts a hostNetwork pod on its node\'s IP', async () => {
    await kubectl(['apply', '-f', '-'], podManifest('host-net', ns, { gate: false, hostNetwork: true }));
    const pod = await readyPod(ns, 'host-net');
    const node = await getJson<{ status: { addresses?: { type: string; address: string }[] } }>(['node', pod.spec.nodeName!]);
    const nodeIP = node?.status.addresses?.find((a) => a.type === 'InternalIP')?.address;
    expect(nodeIP).toMatch(/^127\.1\.\d+\.\d+$/); // each node its own, on loopback
    expect(pod.status.hostIP).toBe(nodeIP);
    expect(pod.status.podIP).toBe(nodeIP);
    expect(pod.status.containerStatuses!.every((c) => c.ready && CONTAINER_ID.test(c.containerID ?? ''))).toBe(true);
  });

  it('shows the restart as a not-ready window when the restart is slow', async () => {
    await kubectl(['apply', '-f', '-'], podManifest('slow', ns, { gate: false, annotations: { 'sim.cloneset-suite.io/ready-delay': '3s' } }));
    await eventually('slow pod Ready', async () => condition(await getJson<Pod>(['pod', 'slow', '-n', ns]), 'Ready')?.status === 'True', { timeoutMs: 30_000 });
    await kubectl(['set', 'image', 'pod/slow', '-n', ns, 'sidecar=busybox:1.37']);
    const during = await eventually('not Ready during the restart', async () => {
      const pod = await getJson<Pod>(['pod', 'slow', '-n', ns]);
      return condition(pod, 'Ready')?.status === 'False' ? pod : undefined;
    });
    expect(during.status.containerStatuses!.find((c) => c.name === 'sidecar')).toMatchObject({ ready: false, image: 'busybox:1.37', restartCount: 1 });
    await eventually('Ready after the delay', async () => condition(await getJson<Pod>(['pod', 'slow', '-n', ns]), 'Ready')?.status === 'True', { timeoutMs: 30_000 });
  });

  it('honours finalizers on delete: the pod stays, stopped, until the finalizer goes', async () => {
    await kubectl(['apply', '-f', '-'], podManifest('held', ns, { gate: false, finalizers: ['cloneset-suite.io/hold'] }));
    await eventually('held pod Ready', async () => condition(await getJson<Pod>(['pod', 'held', '-n', ns]), 'Ready')?.status === 'True');
    await kubectl(['delete', 'pod', 'held', '-n', ns, '--wait=false']);
    const terminating = await eventually('containers stopped', async () => {
      const pod = await getJson<Pod>(['pod', 'held', '-n', ns]);
      return pod?.status.containerStatuses?.every((c) => c.state.terminated) ? pod : undefined;
    });
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    expect(condition(terminating, 'Ready')?.status).toBe('False');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await getJson<Pod>(['pod', 'held', '-n', ns])).toBeDefined();
    await kubectl(['patch', 'pod', 'held', '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    await eventually('pod gone', async () => (await getJson<Pod>(['pod', 'held', '-n', ns])) === undefined);
  });

  it('can keep containers never ready, or crash-looping', async () => {
    await kubectl(['apply', '-f', '-'], podManifest('never', ns, { gate: false, annotations: { 'sim.cloneset-suite.io/never-ready': 'true' } }));
    await kubectl(['apply', '-f', '-'], podManifest('crash', ns, { gate: false, annotations: { 'sim.cloneset-suite.io/crash': 'true' } }));
    await eventually('crash pod in CrashLoopBackOff', async () => {
      const pod = await getJson<Pod>(['pod', 'crash', '-n', ns]);
      return pod?.status.containerStatuses?.every((c) => c.state.waiting?.reason === 'CrashLoopBackOff' && c.restartCount >= 1);
    });
    await new Promise((r) => setTimeout(r, 1500)); // well past the default ready delay
    for (const name of ['never', 'crash']) {
      const pod = await getJson<Pod>(['pod', name, '-n', ns]);
      expect(pod?.status.phase).toBe('Running');
      expect(condition(pod, 'Ready')?.status).toBe('False');
    }
  });

  it('binds a PVC of the default StorageClass and runs a pod that mounts it', async () => {
    await kubectl(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: ns },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    }));
    await eventually('PVC bound', async () => (await getJson<{ status: { phase: string } }>(['pvc', 'data', '-n', ns]))?.status.phase === 'Bound', { timeoutMs: 60_000 });
    await kubectl(['apply', '-f', '-'], podManifest('with-volume', ns, { gate: false, volume: 'data' }));
    await eventually('pod with volume Ready', async () => condition(await getJson<Pod>(['pod', 'with-volume', '-n', ns]), 'Ready')?.status === 'True', { timeoutMs: 60_000 });
  });
});
