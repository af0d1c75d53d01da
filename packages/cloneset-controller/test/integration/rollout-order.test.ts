// Update order (OpenKruise's update order) observed on the cluster: with maxUnavailable 1 pods move one at a
// time, so the order in which their revision label changes is the controller's order.
// The user labels pods after creation (kubectl label), as one does to steer a rollout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl } from '@cloneset-suite/local-cluster';
import type { Observer} from './rollout-kit.ts';
import { apply, cloneSetManifest, patchCloneSet, podsOf, waitNewRevision, waitSettled, type Pod, setUpRollout } from './rollout-kit.ts';

const FAST = { 'sim.cloneset-suite.io/ready-delay': '400ms' };

describe('update order', () => {
  let ns: string;
  let tearDown: () => Promise<void>;
  let observer: Observer;

  beforeAll(async () => {
    ({ ns, observer, tearDown } = await setUpRollout('cs-roll-order'));
  });
  afterAll(async () => {
    await tearDown?.();
  });

  /** Creates the CloneSet, lets the user label its pods, rolls the image, returns pod names in update order. */
  async function rollout(name: string, replicas: number, strategy: Record<string, unknown>, label: (pods: Pod[]) => Promise<void>): Promise<{ order: string[]; pods: Pod[] }> {
    await apply(ns, cloneSetManifest(name, { replicas, sim: FAST, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }));
    const oldRevision = (await waitSettled(ns, name, replicas)).status?.updateRevision ?? '';
    const pods = await podsOf(ns, name);
    await label(pods);
    await patchCloneSet(ns, name, { spec: { updateStrategy: strategy } });
    const t = observer.track(name, { replicas, maxUnavailable: 1, maxPods: replicas });
    const since = observer.moves.length;
    await kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.25' }])]);
    const newRevision = await waitNewRevision(ns, name, oldRevision);
    await waitSettled(ns, name, replicas, 45_000);
    expect(t.violations).toEqual([]);
    observer.untrack(name);
    const order: string[] = [];
    for (const m of observer.moves.slice(since)) {
      if (m.revision === newRevision && !order.includes(m.name)) order.push(m.name);
    }
    expect(order).toHaveLength(replicas);
    return { order, pods };
  }

  const labelPod = (name: string, kv: string) => kubectl(['label', 'pod', name, '-n', ns, kv, '--overwrite']);

  it('weightPriority: higher weight sums move first', async () => {
    const tiers = new Map<string, string>();
    const { order } = await rollout(
      'weights',
      5,
      {
        type: 'InPlaceIfPossible',
        maxUnavailable: 1,
        priorityStrategy: {
          weightPriority: [
            { weight: 50, matchSelector: { matchLabels: { tier: 'high' } } },
            { weight: 10, matchSelector: { matchLabels: { tier: 'mid' } } },
          ],
        },
      },
      async (pods) => {
        // Label against the default order (which prefers newer pods) so the result cannot come from it.
        const [a, b, c, d, e] = [...pods].sort((x, y) => x.metadata.name.localeCompare(y.metadata.name));
        for (const [p, tier] of [[a, 'low'], [b, 'mid'], [c, 'high'], [d, 'mid'], [e, 'high']] as const) {
          tiers.set(p!.metadata.name, tier);
          await labelPod(p!.metadata.name, `tier=${tier}`);
        }
      },
    );
    expect(order.map((n) => tiers.get(n))).toEqual(['high', 'high', 'mid', 'mid', 'low']);
  });

  it('orderPriority: the highest integer suffix of the label value moves first', async () => {
    const ranks = new Map<string, string>();
    const { order } = await rollout(
      'orders',
      5,
      { type: 'InPlaceIfPossible', maxUnavailable: 1, priorityStrategy: { orderPriority: [{ orderedKey: 'rank' }] } },
      async (pods) => {
        const values = ['r-2', 'r-10', 'r-1', 'r-7', 'r-5'];
        for (const [i, p] of pods.entries()) {
          ranks.set(p.metadata.name, values[i]!);
          await labelPod(p.metadata.name, `rank=${values[i]!}`);
        }
      },
    );
    expect(order.map((n) => ranks.get(n))).toEqual(['r-10', 'r-7', 'r-5', 'r-2', 'r-1']);
  });

  it('scatterStrategy: pods carrying foo=bar are spread through the rollout, not bunched', async () => {
    const matched = new Set<string>();
    const { order } = await rollout(
      'scatter',
      10,
      { type: 'InPlaceIfPossible', maxUnavailable: 1, scatterStrategy: [{ key: 'foo', value: 'bar' }] },
      async (pods) => {
        // Three pods, adjacent in name order, so bunching would show.
        for (const p of [...pods].sort((x, y) => x.metadata.name.localeCompare(y.metadata.name)).slice(0, 3)) {
          matched.add(p.metadata.name);
          await labelPod(p.metadata.name, 'foo=bar');
        }
      },
    );
    const positions = order.flatMap((n, i) => (matched.has(n) ? [i + 1] : []));
    // Recomputed after every single update (OpenKruise's update order): 10 candidates with 3 matched put
    // one first; then the remaining two are split around 4 unmatched pods, so the second
    // comes 5th; the last one, alone among the candidates, follows the default order.
    expect(positions).toHaveLength(3);
    expect(positions.slice(0, 2)).toEqual([1, 5]);
    expect(positions[2]).toBeGreaterThan(5);
  });
});
