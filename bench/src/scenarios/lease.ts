// Scenario 6: the leader keeps its Lease through a scale-out of N pods at the
// shipped client limits. The CloneSet controller child runs with leader election on, with the
// controller-manager's default lease timings, while its reconcile client is saturated by the
// scale-out (bound by qps 50); a watcher in the bench process records every renewal.
import { LEADER_ELECTION_CLIENT_LIMITS } from '@cloneset-suite/kube-runtime';
import { SHIPPED_DEFAULTS, SHIPPED_LEASE_TIMINGS as TIMINGS } from '../controller-process.ts';
import { diffSnapshots, type WriteSnapshot } from '../controller-protocol.ts';
import { inNamespace, now } from '../kube.ts';
import { withLeaderSession } from '../leader-session.ts';
import { summarizeRenewals, type RenewalSummary } from '../lease-renewals.ts';
import { allReadyOn } from '../pod-goal.ts';
import { fixed, seconds, type BenchSizes, type Section } from '../result.ts';
import { IMAGE_V1, cloneSet } from '../workloads.ts';
import { createWorkload, formatByKind, waitStatusSettled } from '../workload-run.ts';

type Log = (line: string) => void;

const STATUS_SETTLE_TIMEOUT_MS = 180_000;


interface LeaseRun {
  /** From the create request to all pods Ready and the status settled; NaN when the run did not get there. */
  ms: number;
  /** Why the run ended early (the leader stopped, a timeout), if it did. */
  failure?: string;
  controller: WriteSnapshot;
  renewals: RenewalSummary;
  identity: string;
}

async function scaleOutHoldingLease(n: number): Promise<LeaseRun> {
  const identity = `bench-child-${process.pid}-${Date.now()}`;
  return inNamespace('bench-lease', (ns) =>
    withLeaderSession(ns, SHIPPED_DEFAULTS, identity, async (s) => {
      const before = await s.controller.snapshot();
      const startMs = now();
      let failure: string | undefined;
      try {
        await createWorkload('CloneSet', ns, cloneSet({ name: 'app', replicas: n, image: IMAGE_V1 }));
        await s.controller.unlessStopped(s.observer.waitFor(`${n} Ready pods`, allReadyOn(n), 60_000 + n * 500));
        // At these limits the status trails the pods by the pod writes still queued (up to a pass's worth).
        await s.controller.unlessStopped(waitStatusSettled('CloneSet', ns, 'app', n, STATUS_SETTLE_TIMEOUT_MS));
      } catch (err) {
        failure = (err as Error).message;
      }
      const endMs = now();
      return {
        ms: failure ? Number.NaN : endMs - startMs,
        ...(failure ? { failure } : {}),
        controller: diffSnapshots(before, await s.controller.snapshot()),
        renewals: summarizeRenewals(s.lease.sightings(), { startMs, endMs }),
        identity,
      };
    }),
  );
}

export async function leaseScenario(sizes: BenchSizes, log: Log): Promise<Section> {
  const n = sizes.leaseScaleOut;
  log(`lease: CloneSet scale-out of ${n} at the shipped client limits, leader election on`);
  const run = await scaleOutHoldingLease(n);
  const { renewals, identity } = run;
  const kept = renewals.holderChanges === 0 && renewals.holders.length === 1 && renewals.holders[0] === identity;
  const withinDeadline = renewals.largestSeenGapMs < TIMINGS.renewDeadlineMs;
  const loop = run.controller.eventLoop;
  return {
    title: `Leader election during a scale-out of ${n} pods at the shipped client limits`,
    method: [
      `The CloneSet controller child runs with leader election on, as the controller-manager ships it: lease ${seconds(TIMINGS.leaseDurationMs)} s, renew deadline ${seconds(TIMINGS.renewDeadlineMs)} s, retry period ${seconds(TIMINGS.retryPeriodMs)} s, the elector on its own client (qps ${LEADER_ELECTION_CLIENT_LIMITS.qps} / burst ${LEADER_ELECTION_CLIENT_LIMITS.burst}), the reconciles on the shipped qps ${SHIPPED_DEFAULTS.qps} / burst ${SHIPPED_DEFAULTS.burst}, which the scale-out keeps saturated (about 3 writes per pod).`,
      'Once it holds the Lease, a CloneSet of N replicas is created; a watch on the Lease in the bench process (its own event loop) records every renewal until the status settled.',
      '"Largest renewTime step": the largest difference between successive `spec.renewTime`s (the holder\'s clock); "largest wait seen": the largest time the watcher waited for the next renewal, from the create request to the first one and from the last one to the end of the run included. The leader gives up when it has not renewed for the renew deadline, so both must stay below it; the retry period is what they are when nothing delays a renewal.',
    ].join(' '),
    headers: ['N', 'client limits', 'time to all Ready, status settled (s)', 'renewals', 'largest renewTime step (s)', 'largest wait seen (s)', 'renew deadline (s)', 'holder changes', 'lease kept', 'event loop p99 / max (ms)', 'writes by kind'],
    rows: [
      [
        n,
        `qps ${SHIPPED_DEFAULTS.qps} / burst ${SHIPPED_DEFAULTS.burst}`,
        Number.isFinite(run.ms) ? seconds(run.ms) : 'did not finish',
        renewals.renewals,
        seconds(renewals.largestRenewGapMs),
        seconds(renewals.largestSeenGapMs),
        seconds(TIMINGS.renewDeadlineMs),
        renewals.holderChanges,
        kept && withinDeadline && !run.failure ? 'yes' : 'no',
        `${fixed(loop.p99Ms, 1)} / ${fixed(loop.maxMs, 1)}`,
        formatByKind(run.controller.byKind),
      ],
    ],
    notes: [
      ...(run.failure ? [`The run did not finish: ${run.failure}. The renewals are those seen until then.`] : []),
      `One run: at the shipped limits it is bound by the reconcile client's limiter (about 3 writes per pod at ${SHIPPED_DEFAULTS.qps} writes/s, ${fixed((3 * n) / SHIPPED_DEFAULTS.qps, 0)} s).`,
      '"Writes by kind" counts every mutating request of the child, the elector\'s Lease renewals (PUT leases) included.',
      'The event-loop delay is the controller child\'s over the run (see the scale-out section): a renewal is a timer in that same loop, so a stall of the loop delays it by as much.',
    ],
    data: {
      lease: {
        replicas: n,
        clientLimits: SHIPPED_DEFAULTS,
        electorClientLimits: LEADER_ELECTION_CLIENT_LIMITS,
        leaseDurationMs: TIMINGS.leaseDurationMs,
        renewDeadlineMs: TIMINGS.renewDeadlineMs,
        retryPeriodMs: TIMINGS.retryPeriodMs,
        scaleOutMs: run.ms,
        renewals: renewals.renewals,
        largestRenewGapMs: renewals.largestRenewGapMs,
        largestSeenGapMs: renewals.largestSeenGapMs,
        holderChanges: renewals.holderChanges,
        kept: kept && withinDeadline && !run.failure,
        failure: run.failure ?? null,
        eventLoopP99Ms: loop.p99Ms,
        eventLoopMaxMs: loop.maxMs,
      },
    },
  };
}
