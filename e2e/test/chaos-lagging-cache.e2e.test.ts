// A cache that lags: the manager's PVC watch reaches it 3 s late (through the fault
// proxy), while pod events come at once. A ReCreate rollout with volumeClaimTemplates deletes each
// old pod with its claims; a pass planned before the PVC cache saw those deletes would reuse the
// old instance id with a claim that is on its way out, and the replacement pod would never
// schedule (found by the long crash run: 11 pods Pending on "persistentvolumeclaim not found").
// The rollout completes, and every pod has its own live, bound claim.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSettledClaims } from '../src/chaos/invariants.ts';
import { cloneSetsOf, observerClient, pvcsOf } from './chaos/cluster-client.ts';
import { startFaultProxy, type FaultProxy } from './chaos/fault-proxy.ts';
import { startChaosEnvironment, type ChaosEnvironment } from './chaos/manager-process.ts';
import { applyObject, chaosCloneSet, PVC_TEMPLATE, setImage, waitForRollout } from './chaos/rollout.ts';
import { InvariantSampler, takeSnapshot } from './chaos/sampler.ts';

const client = observerClient();
const PVC_WATCH_LAG_MS = 3_000;

describe(`a PVC cache ${PVC_WATCH_LAG_MS} ms behind the pod cache`, () => {
  let env: ChaosEnvironment;
  let proxy: FaultProxy;

  beforeAll(async () => {
    proxy = await startFaultProxy({ delayWatches: { path: /\/persistentvolumeclaims$/, ms: PVC_WATCH_LAG_MS } });
    env = await startChaosEnvironment('chaos-lag', { kubeconfig: proxy.kubeconfig });
  });

  afterAll(async () => {
    await env?.teardown();
    await proxy?.close();
  });

  it('ReCreate rollouts replace each pod and its claims: no replacement waits on a deleted claim', async () => {
    const ns = env.namespace;
    const name = 'lagging-pvcs';
    const spec = { name, replicas: 6, strategy: 'ReCreate' as const, maxSurge: 0, maxUnavailable: 2, withPvcs: true };
    await applyObject(ns, chaosCloneSet(spec));
    await waitForRollout(client, ns, name, 120_000);
    const uid = (await cloneSetsOf(client).get(ns, name)).metadata.uid ?? '';
    const sampler = new InvariantSampler(client, ns, `app=${name}`, { cloneSetUid: uid, replicas: 6, maxSurge: 0, maxUnavailable: 2, checkAvailability: true, withPvcs: true });
    sampler.start();
    for (const image of ['nginx:1.1', 'nginx:1.2']) {
      await setImage(ns, name, image);
      await waitForRollout(client, ns, name, 120_000);
    }
    await sampler.stop();

    const snap = await takeSnapshot(client, ns, `app=${name}`);
    const bound = new Set((await pvcsOf(client).list({ namespace: ns, labelSelector: `app=${name}` })).items.filter((c) => c.status?.phase === 'Bound').map((c) => c.metadata.name ?? ''));
    expect(sampler.violations).toEqual([]);
    expect(checkSettledClaims(snap, [PVC_TEMPLATE], name, bound)).toEqual([]);
  }, 420_000);
});
