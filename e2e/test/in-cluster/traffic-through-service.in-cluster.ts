// Controlled pods (PodOpsLifecycle, kusionstack.io/control) behind a Service, on the real node:
// during an in-place update the built-in traffic cooperation takes each pod out of the Service's
// EndpointSlice before its container is changed, and it is listed ready again after, with its new
// container (the root README's PodOpsLifecycle section). Read through `kubectl get endpointslices`,
// as a user would.
import { describe, expect, it } from 'vitest';
import { eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import { watchObjects } from './kubectl-watch.ts';
import { IMAGE_2, cloneSetScene, containerIdOf, realNodeCloneSet, type Pod } from './real-node-cloneset.ts';

interface EndpointSlice {
  metadata: { name: string; resourceVersion: string };
  endpoints?: { targetRef?: { name?: string }; conditions?: { ready?: boolean } }[];
}
interface Versioned {
  metadata: { name: string; resourceVersion: string };
}
/** Within one etcd, resourceVersions order every write. */
const rvOf = (o: Versioned): bigint => BigInt(o.metadata.resourceVersion);
const byRv = (a: Versioned, b: Versioned): number => (rvOf(a) < rvOf(b) ? -1 : rvOf(a) > rvOf(b) ? 1 : 0);
interface Event {
  reason: string;
  involvedObject: { name: string };
}

/** Set (to the time, in Unix nanoseconds) while the pod is service-available. */
const SERVICE_AVAILABLE = 'podopslifecycle.kusionstack.io/service-available';

describe('controlled pods behind a Service through PodOpsLifecycle', () => {
  const scene = cloneSetScene('in-cluster-traffic', 'svc');
  /** Pod name -> whether an EndpointSlice of the Service lists it as ready. */
  const readyInSlices = async (): Promise<Map<string, boolean>> => {
    const slices = (await getJson<{ items: EndpointSlice[] }>(['endpointslices', '-n', scene.ns, '-l', 'kubernetes.io/service-name=svc']))?.items ?? [];
    const ready = new Map<string, boolean>();
    for (const endpoint of slices.flatMap((s) => s.endpoints ?? [])) {
      const name = endpoint.targetRef?.name;
      if (name !== undefined) ready.set(name, (ready.get(name) ?? false) || endpoint.conditions?.ready === true);
    }
    return ready;
  };


  it('lists the pods as ready endpoints once they are service-available', async () => {
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { selector: { app: 'svc' }, ports: [{ port: 80 }] } };
    await kubectl(['apply', '-n', scene.ns, '-f', '-'], JSON.stringify(service));
    await kubectl(['apply', '-n', scene.ns, '-f', '-'], realNodeCloneSet({ name: 'svc', replicas: 2, labels: { 'kusionstack.io/control': 'true' } }));
    await eventually('2 service-available pods listed ready by the Service', async () => {
      const list = await scene.cs.settled(2, '2 Ready pods');
      const ready = await readyInSlices();
      return list.every((p) => p.metadata.labels?.[SERVICE_AVAILABLE] !== undefined && ready.get(p.metadata.name) === true) ? list : undefined;
    }, { timeoutMs: 90_000 });
  });

  it('takes each pod out of the endpoints before its container is changed, and lists it again after', async () => {
    const before = await scene.cs.settled(2, '2 Ready pods');
    const firstContainer = new Map(before.map((p) => [p.metadata.name, containerIdOf(p)]));
    // Every version of the pods and of the Service's slices, with its resourceVersion.
    const podVersions = watchObjects<Pod & Versioned>(['pods', '-n', scene.ns, '-l', 'app=svc']);
    const sliceVersions = watchObjects<EndpointSlice>(['endpointslices', '-n', scene.ns, '-l', 'kubernetes.io/service-name=svc']);
    let after: Pod[];
    let pods: (Pod & Versioned)[];
    let slices: EndpointSlice[];
    try {
      await eventually('the watches listing the pods and the slice', () => Promise.resolve(podVersions.objects().length >= 2 && sliceVersions.objects().length >= 1));
      await scene.cs.setContainer('image', IMAGE_2);
      after = await eventually('both pods on the new image, listed ready again', async () => {
        const list = await scene.cs.settled(2, '2 Ready pods on the new revision');
        const ready = await readyInSlices();
        return list.every((p) => p.status.containerStatuses?.[0]?.image === IMAGE_2 && p.metadata.labels?.[SERVICE_AVAILABLE] !== undefined && ready.get(p.metadata.name) === true)
          ? list
          : undefined;
      }, { timeoutMs: 150_000 });
    } finally {
      pods = await podVersions.stop();
      slices = await sliceVersions.stop();
    }
    for (const name of firstContainer.keys()) {
      // The write that changed the pod's image, and what the slices said just before it.
      const changed = pods.filter((p) => p.metadata.name === name && p.spec.containers[0]?.image === IMAGE_2).sort(byRv)[0];
      expect(changed, `${name}: its image was changed`).toBeDefined();
      const latestBefore = new Map<string, EndpointSlice>();
      for (const slice of slices.filter((s) => rvOf(s) < rvOf(changed!)).sort(byRv)) latestBefore.set(slice.metadata.name, slice);
      expect(latestBefore.size, `${name}: a slice version before the image change`).toBeGreaterThan(0);
      const listedReady = [...latestBefore.values()]
        .filter((slice) => slice.endpoints?.some((e) => e.targetRef?.name === name && e.conditions?.ready === true))
        .map((slice) => `${slice.metadata.name}@${slice.metadata.resourceVersion}`);
      expect(listedReady, `${name}: its image changed (resourceVersion ${changed!.metadata.resourceVersion}) while still listed ready by`).toEqual([]);
    }
    for (const pod of after) {
      expect(firstContainer.has(pod.metadata.name)).toBe(true);
      expect(containerIdOf(pod)).not.toBe(firstContainer.get(pod.metadata.name));
    }
    const events = (await getJson<{ items: Event[] }>(['events', '-n', scene.ns]))?.items ?? [];
    for (const name of firstContainer.keys()) {
      const reasons = events.filter((e) => e.involvedObject.name === name).map((e) => e.reason);
      expect(reasons).toEqual(expect.arrayContaining(['TrafficOff', 'TrafficOn']));
    }
  });
});
