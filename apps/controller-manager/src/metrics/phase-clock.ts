// How long each pod has been in its PodOpsLifecycle phase (the phase label the lifecycle
// controller writes). Fed by pod informer events; keeps one entry per managed pod in memory and
// exports only per-phase aggregates, so metric cardinality stays bounded.
import { POL_PHASE_LABEL, parseNanoTimestamp } from '@cloneset-suite/api-types';
import type { PodPhase } from '@cloneset-suite/podopslifecycle';

export const LIFECYCLE_PHASES: readonly PodPhase[] = [
  'PreCheck',
  'Preparing',
  'Operating',
  'Operated',
  'PostCheck',
  'Completing',
  'ServiceAvailable',
  'Unavailable',
];

export interface PodLabelsView {
  metadata?: { uid?: string; labels?: Readonly<Record<string, string>> };
}

/** A phase the pod left, and after how long. */
export interface PhaseLeft {
  phase: PodPhase;
  seconds: number;
}

function phaseOfPod(pod: PodLabelsView): PodPhase | undefined {
  const value = pod.metadata?.labels?.[POL_PHASE_LABEL];
  return LIFECYCLE_PHASES.find((p) => p === value);
}

/**
 * The latest lifecycle label timestamp (ns values of `*.podopslifecycle.kusionstack.io/<id>`): the
 * best guess of when a pod first seen mid-phase (after a restart) entered it.
 */
function latestLifecycleTransitionMs(pod: PodLabelsView): number | undefined {
  let latest: bigint | undefined;
  for (const [key, value] of Object.entries(pod.metadata?.labels ?? {})) {
    if (!key.includes('podopslifecycle.kusionstack.io/')) continue;
    const ns = parseNanoTimestamp(value);
    if (ns !== undefined && (latest === undefined || ns > latest)) latest = ns;
  }
  return latest === undefined ? undefined : Number(latest / 1_000_000n);
}

export class PhaseClock {
  private readonly entries = new Map<string, { phase: PodPhase; sinceMs: number }>();

  /** Records the pod's phase; returns the phase it left (with the time spent) when it changed. */
  observe(pod: PodLabelsView, nowMs: number): PhaseLeft | undefined {
    const uid = pod.metadata?.uid;
    if (!uid) return undefined;
    const phase = phaseOfPod(pod);
    const previous = this.entries.get(uid);
    if (phase === undefined) {
      this.entries.delete(uid);
      return undefined;
    }
    if (!previous) {
      this.entries.set(uid, { phase, sinceMs: Math.min(nowMs, latestLifecycleTransitionMs(pod) ?? nowMs) });
      return undefined;
    }
    if (previous.phase === phase) return undefined;
    this.entries.set(uid, { phase, sinceMs: nowMs });
    return { phase: previous.phase, seconds: Math.max(0, nowMs - previous.sinceMs) / 1000 };
  }

  forget(pod: PodLabelsView): void {
    if (pod.metadata?.uid) this.entries.delete(pod.metadata.uid);
  }

  /** Per phase: how many pods are in it and how long the longest-waiting one has been (seconds). */
  snapshot(nowMs: number): Map<PodPhase, { pods: number; oldestSeconds: number }> {
    const out = new Map(LIFECYCLE_PHASES.map((p) => [p, { pods: 0, oldestSeconds: 0 }]));
    for (const { phase, sinceMs } of this.entries.values()) {
      const agg = out.get(phase)!;
      agg.pods += 1;
      agg.oldestSeconds = Math.max(agg.oldestSeconds, (nowMs - sinceMs) / 1000);
    }
    return out;
  }
}
