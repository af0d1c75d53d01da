// The simulated kubelet's in-place resize (the pod-resize stage): a write to pods/resize is applied
// to status.containerStatuses[].resources after a short delay, without restarting a container; a
// pod annotated sim.cloneset-suite.io/resize: Deferred or Infeasible gets that PodResizePending
// answer instead, for the pod generation it saw. One beyond the node's allocatable never reaches
// the kubelet: the apiserver refuses it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl } from '../../src/index.ts';

interface Resources { requests?: Record<string, string>; limits?: Record<string, string> }
interface Condition { type: string; status: string; reason?: string; message?: string; observedGeneration?: number }
interface ContainerStatus { name: string; ready: boolean; restartCount: number; containerID?: string; resources?: Resources }
interface Pod {
  metadata: { name: string; generation?: number };
  status: { conditions?: Condition[]; containerStatuses?: ContainerStatus[] };
}

const podManifest = (name: string, ns: string, annotations: Record<string, string> = {}) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, annotations },
    spec: {
      containers: [
        { name: 'main', image: 'nginx:1.25', resources: { requests: { cpu: '100m', memory: '64Mi', 'ephemeral-storage': '1Gi' }, limits: { cpu: '200m', memory: '128Mi' } } },
        { name: 'sidecar', image: 'busybox:1.36' },
      ],
    },
  });

const condition = (pod: Pod | undefined, type: string) => pod?.status.conditions?.find((c) => c.type === type);
const statusOf = (pod: Pod, name: string) => pod.status.containerStatuses!.find((c) => c.name === name)!;
const get = (ns: string, name: string) => getJson<Pod>(['pod', name, '-n', ns]);
const readyPod = (ns: string, name: string) =>
  eventually(`${name} Ready`, async () => {
    const pod = await get(ns, name);
    return condition(pod, 'Ready')?.status === 'True' ? pod : undefined;
  }, { timeoutMs: 30_000 });
const resize = (ns: string, name: string, resources: Resources) =>
  kubectl(['patch', 'pod', name, '-n', ns, '--subresource=resize', '--type=strategic', '-p', JSON.stringify({ spec: { containers: [{ name: 'main', resources }] } })]);

describe('simulated kubelet: in-place resize', () => {
  let ns: string;
  let removeNs: () => Promise<void>;
  beforeAll(async () => {
    ({ name: ns, remove: removeNs } = await createTestNamespace('resize'));
  });
  afterAll(async () => {
    await removeNs();
  });

  it('reports each running container\'s cpu and memory, and applies a resize without a restart', async () => {
    await kubectl(['apply', '-f', '-'], podManifest('fits', ns));
    const before = await readyPod(ns, 'fits');
    // What the apiserver needs to accept a resize at all: running containers that report resources.
    expect(statusOf(before, 'main').resources).toEqual({ requests: { cpu: '100m', memory: '64Mi', 'ephemeral-storage': '1Gi' }, limits: { cpu: '200m', memory: '128Mi' } });
    expect(statusOf(before, 'sidecar').resources ?? {}).toEqual({});

    await resize(ns, 'fits', { requests: { cpu: '150m', memory: '96Mi' }, limits: { cpu: '300m' } });
    const after = await eventually('resize applied', async () => {
      const pod = await get(ns, 'fits');
      return pod && statusOf(pod, 'main').resources?.requests?.cpu === '150m' ? pod : undefined;
    }, { timeoutMs: 30_000 });
    expect(statusOf(after, 'main').resources).toEqual({ requests: { cpu: '150m', memory: '96Mi', 'ephemeral-storage': '1Gi' }, limits: { cpu: '300m', memory: '128Mi' } });
    expect(after.metadata.generation).toBe((before.metadata.generation ?? 0) + 1);
    for (const c of ['main', 'sidecar']) {
      expect(statusOf(after, c).containerID, c).toBe(statusOf(before, c).containerID);
      expect(statusOf(after, c).restartCount, c).toBe(0);
    }
    expect(condition(after, 'Ready')?.status).toBe('True');
    expect(condition(after, 'PodResizePending')).toBeUndefined();
  });

  it('leaves a resize beyond the node\'s allocatable to the apiserver, which refuses it', async () => {
    await kubectl(['apply', '-f', '-'], podManifest('too-big', ns));
    await readyPod(ns, 'too-big');
    await expect(resize(ns, 'too-big', { requests: { cpu: '80' }, limits: { cpu: '80' } })).rejects.toThrow(
      /Forbidden.*node didn't have enough allocatable resources: cpu, requested: 80000, allocatable: 64000/,
    );
  });

  it.each(['Deferred', 'Infeasible'] as const)('answers %s when the pod says so, once per generation, and applies a later resize once it no longer does', async (answer) => {
    const name = answer.toLowerCase();
    await kubectl(['apply', '-f', '-'], podManifest(name, ns, { 'sim.cloneset-suite.io/resize': answer }));
    await readyPod(ns, name);
    await resize(ns, name, { requests: { memory: '80Mi' } });
    const pending = await eventually(`resize ${answer}`, async () => {
      const pod = await get(ns, name);
      return condition(pod, 'PodResizePending') ? pod : undefined;
    }, { timeoutMs: 30_000 });
    expect(condition(pending, 'PodResizePending')).toMatchObject({ status: 'True', reason: answer, observedGeneration: pending.metadata.generation });
    expect(statusOf(pending, 'main').resources?.requests?.memory).toBe('64Mi');
    expect(condition(pending, 'Ready')?.status).toBe('True');
    // Answered once for this generation: the stage does not play again.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(condition(await get(ns, name), 'PodResizePending')).toEqual(condition(pending, 'PodResizePending'));

    await kubectl(['annotate', 'pod', name, '-n', ns, 'sim.cloneset-suite.io/resize-']);
    await resize(ns, name, { requests: { memory: '90Mi' } });
    const applied = await eventually('the next resize applied', async () => {
      const pod = await get(ns, name);
      return pod && statusOf(pod, 'main').resources?.requests?.memory === '90Mi' ? pod : undefined;
    }, { timeoutMs: 30_000 });
    expect(condition(applied, 'PodResizePending')).toBeUndefined();
  });
});
