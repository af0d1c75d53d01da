// One timed phase of the large scenarios (a scale-out, a rollout) with the controller holding its
// Lease: the run as timed() measures it, the renewals a watcher saw meanwhile, and the figures a
// report row and results.json take from them (pure, so the arithmetic is tested without a cluster).
import { availableParallelism } from 'node:os';
import { boundOf, clientRateBoundMs, type ClientLimits } from './bounds.ts';
import type { ControllerProcess } from './controller-process.ts';
import { now } from './kube.ts';
import type { LeaseObserver } from './lease-observer.ts';
import { leasesLost, summarizeRenewals, type RenewalSummary } from './lease-renewals.ts';
import type { PodGoal } from './pod-goal.ts';
import { PROCESS_COLUMNS } from './process-cpu.ts';
import { timed, type Session, type TimedOptions, type TimedRun } from './workload-run.ts';

export interface PhaseRun {
  name: string;
  /** Absent when the phase failed or did not run. */
  run?: TimedRun;
  failure?: string;
  /** Renewals seen from the write to the end of the phase; absent without leader election. */
  renewals?: RenewalSummary;
  leasesLost: number;
}

/** The Lease the controller child holds, and how to tell its renewals. */
export interface HeldLease {
  observer: LeaseObserver;
  identity: string;
  renewDeadlineMs: number;
}

export interface PhaseSpec {
  name: string;
  replicas: number;
  write: () => Promise<unknown>;
  goal: PodGoal;
  timeoutMs: number;
  options?: TimedOptions;
}

/**
 * Times one phase; a failure (a timeout, the controller's Manager stopping for a lost lease) is
 * recorded, not thrown, so the run reports what it measured up to there.
 */
export async function runPhase(s: Session, spec: PhaseSpec, lease?: HeldLease): Promise<PhaseRun> {
  const controller: ControllerProcess | undefined = s.controller;
  const startMs = now();
  let run: TimedRun | undefined;
  let failure: string | undefined;
  try {
    const work = timed(s, 'app', spec.replicas, 1, spec.write, spec.goal, spec.timeoutMs, spec.options);
    run = await (controller ? controller.unlessStopped(work) : work);
  } catch (err) {
    failure = (err as Error).message.split('\n')[0];
  }
  const phase: PhaseRun = { name: spec.name, ...(run ? { run } : {}), ...(failure ? { failure } : {}), leasesLost: 0 };
  if (!lease) return phase;
  const renewals = summarizeRenewals(lease.observer.sightings(), { startMs, endMs: now() });
  return { ...phase, renewals, leasesLost: leasesLost(renewals, { identity: lease.identity, renewDeadlineMs: lease.renewDeadlineMs, stoppedFor: controller?.stoppedFor }) };
}

/** Writes of the reconciles: the child's mutating requests without the elector's Lease writes. */
export function reconcileWrites(run: TimedRun): number {
  if (!run.controller) return Number.NaN;
  const leaseWrites = Object.entries(run.controller.byKind)
    .filter(([kind]) => kind.endsWith(' leases'))
    .reduce((sum, [, n]) => sum + n, 0);
  return run.controller.writes - leaseWrites;
}

export interface PhaseFigures {
  ms: number;
  /** What the client's limiter alone would take for the reconciles' writes (NaN without a controller child). */
  clientRateBoundMs: number;
  apiWritesPerPod: number;
  cpuSecondsPer100Pods: number;
  eventLoopP99Ms: number;
  eventLoopMaxMs: number;
  longestStallMs: number;
  longestStallCpuMs: number;
  gcPauses: number;
  gcPauseMaxMs: number;
  gcPauseTotalMs: number;
  /** CPUs the processes measured (apiserver, etcd, kwok...) kept busy on average over the phase's window. */
  cpuBusy: number;
  /** CPUs the whole machine kept busy on average over the window (NaN where /proc/stat was not read). */
  machineBusy: number;
  boundBy: string;
}

const PROCESS_NAMES: Record<string, string> = Object.fromEntries(PROCESS_COLUMNS.map(([key, name]) => [key, name]));

export function phaseFigures(run: TimedRun, replicas: number, limits: ClientLimits | undefined, cpus = availableParallelism()): PhaseFigures {
  const c = run.controller;
  const writes = reconcileWrites(run);
  const bound = c && limits ? clientRateBoundMs(writes, limits) : Number.NaN;
  const cpuSeconds = Object.fromEntries(Object.entries(run.processCpu).map(([k, v]) => [PROCESS_NAMES[k] ?? k, v ?? 0]));
  const cpuTotal = Object.values(cpuSeconds).reduce((a, b) => a + b, 0);
  const stalls = c?.eventLoop.stalls;
  return {
    ms: run.ms,
    clientRateBoundMs: bound,
    apiWritesPerPod: writes / replicas,
    cpuSecondsPer100Pods: c ? (c.cpuMicros / 1e6 / replicas) * 100 : Number.NaN,
    eventLoopP99Ms: c?.eventLoop.p99Ms ?? Number.NaN,
    eventLoopMaxMs: c?.eventLoop.maxMs ?? Number.NaN,
    longestStallMs: stalls?.longestMs ?? Number.NaN,
    longestStallCpuMs: stalls?.longestCpuMs ?? Number.NaN,
    gcPauses: stalls?.gcPauses ?? Number.NaN,
    gcPauseMaxMs: stalls?.gcPauseMaxMs ?? Number.NaN,
    gcPauseTotalMs: stalls?.gcPauseTotalMs ?? Number.NaN,
    cpuBusy: run.windowMs > 0 ? cpuTotal / (run.windowMs / 1000) : Number.NaN,
    machineBusy: run.machineBusySeconds !== undefined && run.windowMs > 0 ? run.machineBusySeconds / (run.windowMs / 1000) : Number.NaN,
    boundBy: boundOf({
      ms: run.ms,
      clientBoundMs: Number.isFinite(bound) ? bound : 0,
      cpuSeconds,
      ...(run.machineBusySeconds !== undefined ? { machineBusySeconds: run.machineBusySeconds } : {}),
      windowMs: run.windowMs,
      cpus,
    }),
  };
}
