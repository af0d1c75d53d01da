// In-place resize (gate InPlaceWorkloadVerticalScaling) on the local cluster: a cpu/memory change
// under InPlaceIfPossible resizes 10 pods through pods/resize, at most maxUnavailable (2) at a time,
// without re-creating or restarting any, each counted unavailable until its status reports the new
// resources; a resize the node answers Infeasible, or Deferred past the deadline, re-creates the
// pod instead, said by a Warning Event and the FailedUpdate condition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import type { KubeObject } from '@cloneset-suite/kube-runtime';
import { apply, cloneSetManifest, condition, getCloneSet, podsOf, revisionOf, setUpRollout, waitNewRevision, waitSettled, type Observer, type Pod } from './rollout-kit.ts';

type Resources = { requests?: Record<string, string>; limits?: Record<string, string> };
const SMALL: Resources = { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } };
const LARGE: Resources = { requests: { cpu: '150m', memory: '96Mi' }, limits: { cpu: '300m', memory: '128Mi' } };

interface ResizedPod extends Pod {
  spec: Pod['spec'] & { containers: (Pod['spec']['containers'][number] & { resources?: Resources })[] };
  status?: NonNullable<Pod['status']> & { containerStatuses?: { name: string; restartCount: number; containerID?: string; resources?: Resources }[] };
}

function manifest(name: string, replicas: number, o: { sim?: Record<string, string>; maxUnavailable: number }): Record<string, unknown> {
  const m = cloneSetManifest(name, { replicas, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: o.maxUnavailable }, sim: o.sim }) as {
    spec: { template: { spec: { containers: Record<string, unknown>[] } } };
  };
  m.spec.template.spec.containers[0]!.resources = SMALL;
  return m;
}
const setResources = (ns: string, name: string, resources: Resources) =>
  kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/resources', value: resources }])]);
const resized = (ns: string, name: string): Promise<ResizedPod[]> => podsOf(ns, name);
const warnings = async (ns: string): Promise<string[]> =>
  ((await getJson<{ items: { reason: string; note?: string; type: string }[] }>(['events.v1.events.k8s.io', '-n', ns]))?.items ?? [])
    .filter((e) => e.type === 'Warning')
    .map((e) => `${e.reason}: ${e.note ?? ''}`);

describe('in-place resize of cpu and memory', () => {
  let ns: string;
  let observer: Observer;
  let tearDown: () => Promise<void>;

  beforeAll(async () => {
    ({ ns, observer, tearDown } = await setUpRollout('cs-roll-resize', { featureGates: { InPlaceWorkloadVerticalScaling: true }, resizeDeferredTimeoutMs: 3_000 }));
  });
  afterAll(async () => {
    await tearDown?.();
  });

  it('resizes 10 pods in place with maxUnavailable 2: same pods, no restart, never more than 2 resizing at once', async () => {
    const name = 'resize';
    // A slow kubelet, so each resize is visibly under way.
    await apply(ns, manifest(name, 10, { maxUnavailable: 2, sim: { 'sim.cloneset-suite.io/resize-delay': '1s' } }));
    const oldRevision = (await waitSettled(ns, name, 10, 90_000)).status?.updateRevision ?? '';
    const before = await resized(ns, name);
    // A resize restarts nothing: no pod goes unready while it runs.
    const unready = new Set<string>();
    observer.pods.addEventHandler({
      onUpdate: (_b, a) => {
        const p = a as unknown as KubeObject & Pod;
        if (p.metadata.labels?.app === name && !p.metadata.deletionTimestamp && condition(p, 'Ready')?.status !== 'True') unready.add(p.metadata.name);
      },
    });
    const t = observer.track(name, { replicas: 10, maxUnavailable: 2, maxPods: 10 });
    await setResources(ns, name, LARGE);
    const newRevision = await waitNewRevision(ns, name, oldRevision);
    const cs = await waitSettled(ns, name, 10, 120_000);
    expect(cs.status).toMatchObject({ updatedReplicas: 10, currentRevision: newRevision });
    observer.untrack(name);

    const after = await resized(ns, name);
    expect(after.map((p) => p.metadata.uid).sort()).toEqual(before.map((p) => p.metadata.uid).sort());
    for (const pod of after) {
      const was = before.find((p) => p.metadata.uid === pod.metadata.uid)!;
      expect(revisionOf(pod)).toBe(newRevision);
      expect(pod.spec.containers[0]?.resources).toEqual(LARGE);
      expect(pod.status?.containerStatuses?.[0]?.resources).toEqual(LARGE);
      expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(0);
      expect(pod.status?.containerStatuses?.[0]?.containerID).toBe(was.status?.containerStatuses?.[0]?.containerID);
    }
    expect(t.violations).toEqual([]);
    // Each resize counted as unavailable while under way, two at a time.
    expect(t.maxUnavailableSeen).toBe(2);
    expect(unready).toEqual(new Set());
    expect(observer.statusViolations).toEqual([]);
  });

  it.each([
    ['Infeasible', 'answered its resize Infeasible (In-place pod resize is not supported on this node)'],
    ['Deferred', "answered its resize Deferred (Node didn't have enough resource: cpu)"],
  ])('a resize the node answers %s is given up: the pod is re-created at the new revision, said by a Warning and FailedUpdate', async (answer, said) => {
    const name = `resize-${answer.toLowerCase()}`;
    await apply(ns, manifest(name, 3, { maxUnavailable: 1, sim: { 'sim.cloneset-suite.io/resize': answer } }));
    const oldRevision = (await waitSettled(ns, name, 3, 60_000)).status?.updateRevision ?? '';
    const before = await resized(ns, name);
    const t = observer.track(name, { replicas: 3, maxUnavailable: 1, maxPods: 3 });
    await setResources(ns, name, LARGE);
    const newRevision = await waitNewRevision(ns, name, oldRevision);
    const cs = await eventually(`${name}: every pod re-created`, async () => {
      const ps = await resized(ns, name);
      const c = await getCloneSet(ns, name);
      return ps.length === 3 && ps.every((p) => !before.some((b) => b.metadata.uid === p.metadata.uid)) && c.status?.updatedAvailableReplicas === 3 && c.status.currentRevision === newRevision ? c : undefined;
    }, { timeoutMs: 150_000, intervalMs: 500 });
    observer.untrack(name);
    for (const pod of await resized(ns, name)) expect(pod.spec.containers[0]?.resources).toEqual(LARGE);
    expect(t.violations).toEqual([]);

    const seen = (observer.statuses.get(name) ?? []).flatMap((s) => s.conditions ?? []).filter((c) => c.type === 'FailedUpdate' && c.status === 'True');
    expect(seen.some((c) => (c.message ?? '').includes(said))).toBe(true);
    // Cleared once the re-created pods run.
    expect(cs.status?.conditions?.find((c) => c.type === 'FailedUpdate')?.status ?? 'False').toBe('False');
    const reported = await eventually('the Warnings', async () => {
      const w = (await warnings(ns)).filter((e) => e.startsWith('FailedUpdatePodInPlace: ') && e.includes(said));
      return w.length >= 3 ? w : undefined;
    });
    for (const old of before) expect(reported.some((w) => w.includes(`pod ${old.metadata.name}: `))).toBe(true);
  });
});
