// Control-plane faults: the manager talks to the apiserver through a loopback
// fault-injecting proxy the test starts. Mid-rollout the proxy ends every watch with 410 Expired
// (forced relists), then answers 429 and later 503 to every request for a while; finally the
// kube-apiserver itself is restarted. The controllers converge (rollout complete, the last
// replicas), with no duplicate create (no 409 on pod creation) and no lost delete (no pod of an
// old revision left), and back off while faulted (requests counted at the proxy: no hot loop).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergePatch } from '@cloneset-suite/kube-runtime';
import { restartComponent, usingExternalCluster } from '@cloneset-suite/local-cluster';
import { cloneSetsOf, observerClient } from './chaos/cluster-client.ts';
import { startFaultProxy, type FaultProxy } from './chaos/fault-proxy.ts';
import { breaking, startChaosEnvironment, type ChaosEnvironment, type ManagerReplica } from './chaos/manager-process.ts';
import { applyObject, chaosCloneSet, setImage, waitForRollout } from './chaos/rollout.ts';
import { InvariantSampler } from './chaos/sampler.ts';

const client = observerClient();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const FAULT_MS = 8_000;

describe('control-plane faults', () => {
  let env: ChaosEnvironment;
  let ns: { name: string };
  let manager: ManagerReplica;
  let proxy: FaultProxy;

  beforeAll(async () => {
    proxy = await startFaultProxy({ swallowPodDeletes: breaking('lost-delete') });
    env = await startChaosEnvironment('chaos-cp', { kubeconfig: proxy.kubeconfig });
    ({ manager } = env);
    ns = { name: env.namespace };
  });

  afterAll(async () => {
    await env?.teardown();
    await proxy?.close();
  });

  it('converges after watch expiry, 429s, 503s and an apiserver restart, backing off meanwhile', async () => {
    const name = 'faults';
    const spec = { name, replicas: 12, strategy: 'ReCreate' as const, maxSurge: 2, maxUnavailable: 2, withPvcs: false };
    await applyObject(ns.name, chaosCloneSet(spec));
    await waitForRollout(client, ns.name, name, 180_000);
    const uid = (await cloneSetsOf(client).get(ns.name, name)).metadata.uid ?? '';
    // The test sets replicas to 14 and back to 12: the sampler follows the spec (the largest count
    // in force for maxSurge, the smallest for availability) rather than holding 12 throughout.
    const sampler = new InvariantSampler(
      client,
      ns.name,
      `app=${name}`,
      { cloneSetUid: uid, replicas: 12, maxSurge: 2, maxUnavailable: 2, checkAvailability: true, withPvcs: false },
      { followSpecReplicas: true },
    );
    sampler.start();

    // 1. Every watch ends with 410 Expired while a rollout starts: informers must relist.
    const listsBefore = [...proxy.counts().requests].filter(([k]) => k.endsWith(' list')).reduce((n, [, v]) => n + v, 0);
    proxy.setFault({ kind: 'expire-watches' });
    await setImage(ns.name, name, 'nginx:2.0');
    await sleep(FAULT_MS);
    proxy.setFault({ kind: 'none' });
    const relists = [...proxy.counts().requests].filter(([k]) => k.endsWith(' list')).reduce((n, [, v]) => n + v, 0) - listsBefore;

    // 2. and 3. Throttled, then failing: count what the manager sends while nothing succeeds.
    const windows: Record<string, number> = {};
    for (const code of [429, 503] as const) {
      await setImage(ns.name, name, `nginx:${code}`);
      await cloneSetsOf(client).patch(ns.name, name, mergePatch({ spec: { replicas: code === 429 ? 14 : 12 } }));
      const before = proxy.nonWatchRequests();
      proxy.setFault({ kind: 'status', code });
      await sleep(FAULT_MS);
      proxy.setFault({ kind: 'none' });
      windows[code] = proxy.nonWatchRequests() - before;
    }

    // 4. The apiserver itself goes away mid-rollout (local cluster only: the test restarts its process).
    await setImage(ns.name, name, 'nginx:3.0');
    const exitsBefore = manager.unexpectedExits.length;
    if (!usingExternalCluster()) await restartComponent('kube-apiserver');
    // Unable to renew its Lease while the apiserver is away, the manager exits on purpose (as
    // controller-runtime does) for its supervisor (ManagerReplica plays it) to start it again.
    await sleep(5_000);
    await manager.settled();
    const exitedWithApiserver = manager.unexpectedExits.length > exitsBefore;

    await waitForRollout(client, ns.name, name, 240_000).catch((err: unknown) => {
      const complaints = manager.output().split('\n').filter((l) => /"level":"(warn|error|fatal)"/.test(l)).slice(-20);
      throw new Error(`${(err as Error).message}\nproxy: ${JSON.stringify(Object.fromEntries(proxy.counts().requests))}\nmanager warnings:\n${complaints.join('\n')}`, { cause: err });
    });
    await sampler.stop();
    const counts = proxy.counts();
    console.log(
      `[chaos-control-plane] relists during ${FAULT_MS} ms of expired watches: ${relists}; requests in ${FAULT_MS} ms of 429: ${windows[429]}, of 503: ${windows[503]}; ` +
        `faulted answers ${counts.faulted}; manager exited with the apiserver restart: ${exitedWithApiserver}; duplicate pod creates ${counts.duplicateCreates}; requests by kind: ${JSON.stringify(Object.fromEntries(counts.requests))}; sampler: ${sampler.summary()}`,
    );
    expect(relists).toBeGreaterThan(0);
    // Backoff, not a hot loop: every informer, controller and the Event recorder retry, but in all
    // under 15 requests per second while every answer is an error (a loop would run at the
    // client's own limit, 50 per second; runs measured 17 to 78 requests in 8 s).
    expect(windows[429]).toBeLessThanOrEqual((FAULT_MS / 1000) * 15);
    expect(windows[503]).toBeLessThanOrEqual((FAULT_MS / 1000) * 15);
    expect(counts.duplicateCreates).toBe(0);
    expect(sampler.violationTotal, sampler.summary()).toBe(0);
    expect((await cloneSetsOf(client).get(ns.name, name)).spec.replicas).toBe(12);
    expect(manager.starts).toBe(exitedWithApiserver ? 2 : 1);
    expect(manager.pid).toBeDefined();
  }, 600_000);
});
