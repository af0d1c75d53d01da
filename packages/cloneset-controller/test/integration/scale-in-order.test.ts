// Scale-in deletion order (OpenKruise's scale-in order). The template carries a scheduling gate, so the test decides
// where and when each pod is scheduled (and so when it becomes Ready): unscheduled pods go first,
// then not-ready ones, then lower pod-deletion-cost, then pods sharing a node with another.
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { controllerInNamespace } from './harness.ts';
import { apply, cloneSet, isReady, listPods, scale, sleep, type Pod } from './support.ts';

const GATE = 'cloneset-suite.io/hold';
const COST = 'controller.kubernetes.io/pod-deletion-cost';

describe('scale-in order', () => {
  let ns: string;
  let a: string, b: string, c: string, d: string, e: string;

  const pods = (app = 'order'): Promise<Pod[]> => listPods(ns, `app=${app}`);
  const names = async (): Promise<string[]> => (await pods()).map((p) => p.metadata.name).sort();
  const setCost = (pod: string, cost: number): Promise<string> => kubectl(['annotate', 'pod', pod, '-n', ns, `${COST}=${cost}`, '--overwrite']);

  /** Pins the pod to a node, lifts its scheduling gate and waits until it is Ready. */
  async function place(pod: string, node: string, app = 'order'): Promise<void> {
    await kubectl(['patch', 'pod', pod, '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { nodeSelector: { 'kubernetes.io/hostname': node } } })]);
    await kubectl(['patch', 'pod', pod, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'remove', path: '/spec/schedulingGates' }])]);
    await eventually(`${pod} ready on ${node}`, async () => {
      const p = (await pods(app)).find((x) => x.metadata.name === pod);
      return p?.spec.nodeName === node && isReady(p);
    });
  }

  async function scaleTo(n: number): Promise<string[]> {
    await scale(ns, 'order', n);
    return eventually(`${n} pods`, async () => {
      const l = await names();
      return l.length === n ? l : undefined;
    });
  }

  controllerInNamespace('cs-order', (s) => ({ ns } = s));
  beforeAll(async () => {
    await apply(ns, cloneSet('order', 5, {}, { spec: { schedulingGates: [{ name: GATE }] } }));
    [a, b, c, d, e] = (await eventually('5 gated pods', async () => {
      const l = await names();
      return l.length === 5 ? l : undefined;
    })) as [string, string, string, string, string];
    // a and b share kwok-node-0, b Ready a second later; c alone on node-1, Ready last but one;
    // d alone on node-2; e never scheduled. Ready times have one-second resolution.
    await place(a, 'kwok-node-0');
    await sleep(1_100);
    await place(b, 'kwok-node-0');
    await sleep(1_100);
    await place(c, 'kwok-node-1');
    await place(d, 'kwok-node-2');
  });

  it('deletes the unscheduled pod first, even with the highest deletion cost', async () => {
    await setCost(e, 1000);
    expect(await scaleTo(4)).toEqual([a, b, c, d].sort());
  });

  it('deletes a not-ready pod before ready ones, even with the highest deletion cost', async () => {
    await setCost(d, 1000);
    await kubectl(['patch', 'pod', d, '-n', ns, '--subresource=status', '--type=strategic', '-p', JSON.stringify({ status: { conditions: [{ type: 'KruisePodReady', status: 'False' }] } })]);
    await eventually(`${d} not ready`, async () => !isReady((await pods()).find((p) => p.metadata.name === d)!));
    expect(await scaleTo(3)).toEqual([a, b, c].sort());
  });

  it('spreads: deletes one of the two pods sharing a node (the more recently ready) before the lone, newest pod', async () => {
    expect(await scaleTo(2)).toEqual([a, c].sort());
  });

  it('respects pod-deletion-cost: the lower cost goes first, before the more recently ready pod', async () => {
    await setCost(a, -10);
    expect(await scaleTo(1)).toEqual([c]);
  });

  it('with topologySpreadConstraints on zones, deletes from the crowded zone before the newest pod (node labels from the cache)', async () => {
    const spread = { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'zoned' } } }] };
    await apply(ns, cloneSet('zoned', 4, {}, { spec: { schedulingGates: [{ name: GATE }], ...spread } }));
    const [p1, p2, p3, p4] = (await eventually('4 gated pods', async () => {
      const l = (await pods('zoned')).map((p) => p.metadata.name).sort();
      return l.length === 4 ? l : undefined;
    })) as [string, string, string, string];
    // Two pods in zone-a (kwok-node-0 and -3, on different nodes) Ready first; zone-b and zone-c
    // one each, Ready later. Without zones the more recently ready p4 would go first.
    await place(p1, 'kwok-node-0', 'zoned');
    await place(p2, 'kwok-node-3', 'zoned');
    await sleep(1_100);
    await place(p3, 'kwok-node-1', 'zoned');
    await sleep(1_100);
    await place(p4, 'kwok-node-2', 'zoned');
    await scale(ns, 'zoned', 3);
    const left = await eventually('3 zoned pods', async () => {
      const l = (await pods('zoned')).map((p) => p.metadata.name);
      return l.length === 3 ? l : undefined;
    });
    expect(left).toContain(p3);
    expect(left).toContain(p4);
    expect(left.filter((n) => n === p1 || n === p2)).toHaveLength(1);
  });
});

