// Leader failover: two controller-manager replicas with leader election behind one
// webhook address. SIGKILL the leader mid-rollout: the standby takes the Lease never before it
// expired and within two (jittered) retry periods after, so within the lease duration of the
// last renewal plus that (measured and printed); the rollout completes, and no two
// replicas ever write at once, judged by the writers' identities: every Event's
// reportingInstance is the replica that held the Lease when it was written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resources, type KubeObject } from '@cloneset-suite/kube-runtime';
import { createTestNamespace, eventually, freePort } from '@cloneset-suite/local-cluster';
import { observerClient } from './chaos/cluster-client.ts';
import { breaking, installForNamespace, ManagerReplica, waitForAdmission } from './chaos/manager-process.ts';
import { applyObject, chaosCloneSet, setImage, waitForRollout } from './chaos/rollout.ts';
import { startTcpFront, type TcpFront } from '@cloneset-suite/controller-manager';

const LEASE_MS = 6_000;
const RETRY_MS = 1_000;
const client = observerClient();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Lease extends KubeObject {
  spec?: { holderIdentity?: string; renewTime?: string; acquireTime?: string };
}
interface EventV1 extends KubeObject {
  eventTime?: string;
  reason?: string;
  reportingInstance?: string;
  reportingController?: string;
  series?: { lastObservedTime?: string };
}

describe('leader failover', () => {
  let ns: { name: string; remove: () => Promise<void> };
  let replicas: ManagerReplica[] = [];
  let front: TcpFront;
  let uninstall: () => Promise<void>;
  let leaseName: string;
  const lease = async (): Promise<Lease['spec']> => (await client.resource<Lease>(Resources.leases).get(ns.name, leaseName).catch(() => undefined))?.spec;
  const holder = async (): Promise<string> => (await lease())?.holderIdentity ?? '';

  beforeAll(async () => {
    ns = await createTestNamespace('chaos-failover');
    leaseName = `chaos-failover-${ns.name.slice(-6)}`;
    const [frontPort, a, b] = [await freePort(), await freePort(), await freePort()];
    uninstall = await installForNamespace(ns.name, leaseName, frontPort);
    front = await startTcpFront(frontPort, [a, b]);
    replicas = [
      await ManagerReplica.create({ namespace: ns.name, name: leaseName, webhookUrlPort: frontPort, webhookPort: a }),
      await ManagerReplica.create({ namespace: ns.name, name: leaseName, webhookUrlPort: frontPort, webhookPort: b, ...(breaking('two-leaders') ? { extraArgs: ['--leader-elect=false'] } : {}) }),
    ];
    await replicas[0]!.start();
    await eventually('replica 0 leading', async () => (await holder()) !== '', { timeoutMs: 30_000 });
    await replicas[1]!.start(120_000, 'healthz');
    await waitForAdmission(ns.name);
  });

  afterAll(async () => {
    for (const r of replicas) await r.stop();
    await front?.close();
    await uninstall?.();
    await ns?.remove();
  });

  it('the standby takes over within the lease duration after a SIGKILL mid-rollout, and the replicas never write at once', async () => {
    const name = 'failover';
    await applyObject(ns.name, chaosCloneSet({ name, replicas: 20, strategy: 'ReCreate', maxSurge: 2, maxUnavailable: 2, withPvcs: false }));
    await waitForRollout(client, ns.name, name, 180_000);
    const first = await holder();
    expect(first).not.toBe('');

    await setImage(ns.name, name, 'nginx:2.0');
    await sleep(1_500);
    // Before any failover, the Lease holder is the only writer.
    const writersBefore = new Set((await client.resource<EventV1>(Resources.events).list({ namespace: ns.name })).items.filter((e) => e.reportingController === 'cloneset-controller').map((e) => e.reportingInstance));
    expect([...writersBefore]).toEqual([first]);
    const leader = replicas.find((r) => r.output().includes(first)) ?? replicas[0]!;
    const killedAt = Date.now();
    await leader.kill();
    // The killed leader's last renewal: the Lease is valid until renewTime + lease duration.
    const lastRenewal = Date.parse((await lease())?.renewTime ?? '');
    const taken = await eventually('another replica holding the Lease', async () => {
      const l = await lease();
      return l?.holderIdentity && l.holderIdentity !== first ? l : undefined;
    }, { timeoutMs: 4 * LEASE_MS, intervalMs: 50 });
    const second = taken.holderIdentity ?? '';
    const takenAt = Date.now();
    const takeoverMs = takenAt - killedAt;
    // Never before the Lease expired (that would be two leaders), and within two jittered retry periods after.
    const afterExpiryMs = Date.parse(taken.acquireTime ?? '') - (lastRenewal + LEASE_MS);
    await waitForRollout(client, ns.name, name, 180_000);

    const events = (await client.resource<EventV1>(Resources.events).list({ namespace: ns.name })).items.filter((e) => e.reportingController === 'cloneset-controller');
    const byInstance = new Map<string, EventV1[]>();
    for (const e of events) byInstance.set(e.reportingInstance ?? '', [...(byInstance.get(e.reportingInstance ?? '') ?? []), e]);
    const timeOf = (e: EventV1): number => Date.parse(e.series?.lastObservedTime ?? e.eventTime ?? '');
    const firstOf = (e: EventV1): number => Date.parse(e.eventTime ?? '');
    // eventTime has microseconds from this machine's clock, the same the test reads; 500 ms covers the write in flight.
    const lateFromKilled = (byInstance.get(first) ?? []).filter((e) => timeOf(e) > killedAt + 500);
    const earlyFromNew = (byInstance.get(second) ?? []).filter((e) => firstOf(e) < takenAt - RETRY_MS - 500);
    console.log(
      `[chaos-failover] takeover ${takeoverMs} ms after SIGKILL, ${afterExpiryMs} ms after the Lease expired (lease ${LEASE_MS} ms, retry ${RETRY_MS} ms); Events by writer: ${[...byInstance].map(([k, v]) => `${k.slice(-8)}=${v.length}`).join(', ')}`,
    );
    expect([...byInstance.keys()].sort()).toEqual([first, second].sort());
    expect(lateFromKilled.map((e) => e.reason)).toEqual([]);
    expect(earlyFromNew.map((e) => e.reason)).toEqual([]);
    expect(afterExpiryMs).toBeGreaterThanOrEqual(0);
    expect(afterExpiryMs).toBeLessThanOrEqual(2.2 * RETRY_MS + 500);
    expect(takeoverMs).toBeLessThanOrEqual(LEASE_MS + 2.2 * RETRY_MS + 500);
  });
});
