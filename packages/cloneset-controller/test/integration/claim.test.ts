// Claiming (orphans are never adopted, as in OpenKruise): a controlled pod whose labels stop matching is released (our
// ownerReference removed, the pod keeps running) and replaced; a matching orphan is never adopted;
// a matching pod with only a non-controller reference to the CloneSet is adopted.
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { controllerInNamespace } from './harness.ts';
import { apply, cloneSet, getCloneSet, isReady, listPods, readyPods, sleep, type Pod } from './support.ts';

describe('CloneSet claiming', () => {
  let ns: string;
  let csUid: string;

  controllerInNamespace('cs-claim', (s) => ({ ns } = s));
  beforeAll(async () => {
    await apply(ns, cloneSet('claim', 2));
    await readyPods(ns, 'app=claim', 2);
    csUid = (await getCloneSet(ns, 'claim'))!.metadata.uid;
  });

  const owned = (p: Pod): boolean => (p.metadata.ownerReferences ?? []).some((r) => r.uid === csUid);

  it('releases a controlled pod whose labels no longer match, keeps it running and replaces it', async () => {
    const [victim] = await listPods(ns, 'app=claim');
    await kubectl(['label', 'pod', victim!.metadata.name, '-n', ns, 'app=moved', '--overwrite']);
    const released = await eventually('ownerReference removed', async () => {
      const [p] = await listPods(ns, 'app=moved');
      return p && !owned(p) ? p : undefined;
    });
    expect(released.metadata.uid).toBe(victim!.metadata.uid);
    expect(released.metadata.ownerReferences ?? []).toEqual([]);
    const pods = await readyPods(ns, 'app=claim', 2);
    expect(pods.every(owned)).toBe(true);
    expect(pods.map((p) => p.metadata.uid)).not.toContain(victim!.metadata.uid);
    // The released pod is left alone: still there, still running.
    await sleep(1_000);
    const still = await listPods(ns, 'app=moved');
    expect(still.map((p) => p.metadata.uid)).toEqual([victim!.metadata.uid]);
    expect(isReady(still[0]!)).toBe(true);
    await eventually('status counts 2', async () => (await getCloneSet(ns, 'claim'))?.status?.replicas === 2);
  });

  it('does not adopt an orphan pod whose labels match', async () => {
    await apply(ns, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'orphan', labels: { app: 'claim' } },
      spec: { containers: [{ name: 'main', image: 'nginx:alpine' }] },
    });
    await eventually('orphan ready', async () => (await listPods(ns, 'app=claim')).some((p) => p.metadata.name === 'orphan' && isReady(p)));
    // Poke the CloneSet so a reconcile certainly runs with the orphan in the cache.
    await kubectl(['annotate', 'clone', 'claim', '-n', ns, `poke=${Date.now()}`, '--overwrite']);
    await sleep(2_000);
    const pods = await listPods(ns, 'app=claim');
    const orphan = pods.find((p) => p.metadata.name === 'orphan')!;
    expect(orphan.metadata.ownerReferences ?? []).toEqual([]);
    // The CloneSet neither counts it nor scales in because of it.
    expect(pods.filter(owned)).toHaveLength(2);
    expect((await getCloneSet(ns, 'claim'))?.status?.replicas).toBe(2);
    await kubectl(['delete', 'pod', 'orphan', '-n', ns, '--wait=false']);
  });

  it('adopts a matching pod that has only a non-controller reference to the CloneSet', async () => {
    // Ready first under another label, at the CloneSet's revision (else, being "old", it is the
    // first to go in the scale-in order) and with a high deletion cost, so the scale-in that follows the adoption
    // (one pod too many) keeps it.
    const revision = (await getCloneSet(ns, 'claim'))!.status!.updateRevision!;
    await apply(ns, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'half-owned', labels: { app: 'later', 'controller-revision-hash': revision }, annotations: { 'controller.kubernetes.io/pod-deletion-cost': '1000' } },
      spec: { containers: [{ name: 'main', image: 'nginx:alpine' }] },
    });
    await eventually('half-owned ready', async () => (await listPods(ns, 'app=later')).some(isReady));
    const ref = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'claim', uid: csUid };
    await kubectl(['patch', 'pod', 'half-owned', '-n', ns, '--type=merge', '-p', JSON.stringify({ metadata: { labels: { app: 'claim' }, ownerReferences: [ref] } })]);
    const adopted = await eventually('reference made the controller reference', async () => {
      const p = (await listPods(ns, 'app=claim')).find((x) => x.metadata.name === 'half-owned');
      return p?.metadata.ownerReferences?.some((r) => r.uid === csUid && r.controller === true) ? p : undefined;
    });
    expect(adopted.metadata.ownerReferences).toHaveLength(1);
    // Now claimed, it counts: one pod too many, so another one is scaled in.
    await eventually('back to 2 claimed pods, half-owned among them', async () => {
      const pods = (await listPods(ns, 'app=claim')).filter(owned);
      return pods.length === 2 && pods.some((p) => p.metadata.name === 'half-owned') && (await getCloneSet(ns, 'claim'))?.status?.replicas === 2;
    });
  });
});
