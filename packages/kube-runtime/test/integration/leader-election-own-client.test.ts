// Against the real apiserver: the leader renews its Lease on a client of its
// own, so a reconcile client saturated far past its rate limit never costs the leadership.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resources } from '../../src/client/gvr.ts';
import { loadKubeConfig } from '../../src/client/transport.ts';
import type { KubeObject } from '../../src/client/types.ts';
import type { Lease } from '../../src/leader-election.ts';
import { Manager, type StopReason } from '../../src/manager.ts';
import { whenAborted } from '../../src/runnable.ts';
import { createNamespace, kubeconfigPath, newClient, waitFor } from './support.ts';

const IDENTITY = 'saturated-leader';
const LEASE_NAME = 'own-client';
const TIMINGS = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
/** The reconcile client: 2 requests/s; WRITES of them queue 20 s of work, far past the renew deadline. */
const RECONCILE_LIMITS = { qps: 2, burst: 2 };
const WRITES = 40;
const WATCH_MS = 10_000;

interface Renewal {
  holder: string;
  renewTimeMs: number;
}

describe('leader election on its own client', () => {
  const client = newClient();
  let ns: { name: string; remove: () => Promise<void> };
  beforeAll(async () => {
    ns = await createNamespace(client, 'kr-lease-own-client');
  });
  afterAll(async () => {
    await ns?.remove();
  });

  it('keeps renewing within the renew deadline while the reconcile client is saturated with writes', async () => {
    const manager = new Manager({
      kubeConfig: loadKubeConfig(kubeconfigPath()),
      ...RECONCILE_LIMITS,
      leaderElection: { namespace: ns.name, name: LEASE_NAME, identity: IDENTITY, ...TIMINGS },
    });
    let completed = 0;
    // The leader's work: WRITES creates on the manager's (reconcile) client, all at once.
    manager.add({
      name: 'saturating-writer',
      needLeaderElection: true,
      async start(signal) {
        const configMaps = manager.client.resource<KubeObject>(Resources.configMaps);
        for (let i = 0; i < WRITES; i++) {
          void configMaps
            .create({ metadata: { name: `load-${i}`, namespace: ns.name } }, { namespace: ns.name, signal })
            .then(() => completed++, () => undefined);
        }
        await whenAborted(signal);
      },
    });
    let stopped: StopReason | undefined;
    const done = manager.start().then((reason) => (stopped = reason));
    const leases = client.resource<Lease>(Resources.leases);
    const read = async (): Promise<Renewal | undefined> => {
      const lease = await leases.get(ns.name, LEASE_NAME).catch(() => undefined);
      const renewTime = lease?.spec?.renewTime;
      return renewTime ? { holder: lease.spec?.holderIdentity ?? '', renewTimeMs: Date.parse(renewTime) } : undefined;
    };
    try {
      await waitFor('the manager to take the lease', async () => (await read())?.holder === IDENTITY, 30_000);
      // Watched by the test's own unthrottled client, every 100 ms.
      const renewals: Renewal[] = [];
      const until = Date.now() + WATCH_MS;
      while (Date.now() < until) {
        const r = await read();
        if (r && r.renewTimeMs !== renewals.at(-1)?.renewTimeMs) renewals.push(r);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // The reconcile client really was saturated for the whole window.
      expect(completed).toBeLessThan(WRITES);
      expect(stopped, 'the manager stopped while the writes were queued').toBeUndefined();
      expect(new Set(renewals.map((r) => r.holder))).toEqual(new Set([IDENTITY]));
      const gaps = renewals.slice(1).map((r, i) => r.renewTimeMs - renewals[i]!.renewTimeMs);
      expect(gaps.length, 'renewals seen in the window').toBeGreaterThanOrEqual(WATCH_MS / TIMINGS.renewDeadlineMs);
      expect(Math.max(...gaps)).toBeLessThan(TIMINGS.renewDeadlineMs);
    } finally {
      manager.stop();
      await done;
    }
  });
});
