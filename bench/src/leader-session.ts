// A CloneSet session whose controller child runs with leader election as the controller-manager
// ships it (the shipped lease timings), its Lease watched from the bench process so renewals are
// timed by a watcher the child cannot stall; the body starts once the child holds the Lease.
import type { ClientLimits } from './bounds.ts';
import { SHIPPED_LEASE_TIMINGS, type ControllerProcess } from './controller-process.ts';
import { LeaseObserver } from './lease-observer.ts';
import { withSession, type Session } from './workload-run.ts';

/** The Lease a bench controller child elects itself on, in the namespace it runs on. */
export const BENCH_LEASE_NAME = 'bench-cloneset-controller';
const ACQUIRE_TIMEOUT_MS = 30_000;

export interface LeaderSession extends Session {
  controller: ControllerProcess;
  lease: LeaseObserver;
  /** The child's holder identity. */
  identity: string;
}

export async function withLeaderSession<T>(ns: string, limits: ClientLimits, identity: string, body: (s: LeaderSession) => Promise<T>): Promise<T> {
  const lease = await LeaseObserver.start(ns, BENCH_LEASE_NAME);
  try {
    return await withSession(
      'CloneSet',
      ns,
      async (s) => {
        await lease.waitForHolder(identity, ACQUIRE_TIMEOUT_MS);
        return body({ ...s, controller: s.controller!, lease, identity });
      },
      { ...limits, leaderElection: { name: BENCH_LEASE_NAME, identity, ...SHIPPED_LEASE_TIMINGS } },
    );
  } finally {
    lease.stop();
  }
}
