// A pod of the CloneSet that turns Failed (kruise #2481): the CloneSet says so in an Event, a new
// pod takes its place at once, and the Failed pod is left for inspection, as OpenKruise leaves it.
import { describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { controllerInNamespace } from './harness.ts';
import { apply, cloneSet, getCloneSet, listEvents, listPods, readyPods } from './support.ts';

describe('a pod that fails', () => {
  let ns: string;

  controllerInNamespace('cs-failed', (s) => ({ ns } = s));

  it('is replaced, kept, and reported in a Warning Event naming it', async () => {
    await apply(ns, cloneSet('fp', 2));
    const [victim, other] = await readyPods(ns, 'app=fp', 2);
    // What a kubelet writes when it evicts a pod.
    const status = { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' };
    await kubectl(['patch', 'pod', victim!.metadata.name, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);

    const events = await eventually('a PodFailed Event', async () => {
      const e = await listEvents(ns, 'PodFailed');
      return e.length > 0 ? e : undefined;
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'Warning', involvedObject: { kind: 'CloneSet', name: 'fp' } });
    expect(events[0]!.message ?? events[0]!.note).toBe(
      `pod ${victim!.metadata.name} entered phase Failed (Evicted: The node was low on resource: memory.): it no longer counts as a replica and a new pod takes its place; the failed pod is kept for inspection`,
    );

    const replaced = await eventually('a new pod in the failed one\'s place, Ready', async () => {
      const pods = await listPods(ns, 'app=fp');
      const running = pods.filter((p) => p.status.phase !== 'Failed');
      return running.length === 2 && running.every((p) => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) ? pods : undefined;
    }, { timeoutMs: 60_000 });
    // The failed pod stays (not deleted by the CloneSet), the healthy one is untouched.
    expect(replaced.map((p) => p.metadata.name)).toContain(victim!.metadata.name);
    expect(replaced.find((p) => p.metadata.name === victim!.metadata.name)?.status.phase).toBe('Failed');
    expect(replaced.find((p) => p.metadata.name === other!.metadata.name)?.metadata.uid).toBe(other!.metadata.uid);
    expect(replaced).toHaveLength(3);
    const cs = await eventually('status counts the two running pods', async () => {
      const c = await getCloneSet(ns, 'fp');
      return c?.status?.readyReplicas === 2 && c.status.replicas === 2 ? c : undefined;
    });
    expect(cs.status?.availableReplicas).toBe(2);
    // Another write to the failed pod is no second failure.
    await kubectl(['label', 'pod', victim!.metadata.name, '-n', ns, 'inspected=true']);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await listEvents(ns, 'PodFailed')).toHaveLength(1);
  });
});
