// Messages between the bench and its CloneSet controller child.
import type { LoopStalls } from './loop-stalls.ts';

export interface ControllerChildOptions {
  namespace: string;
  /** What the child runs: the CloneSet controller, or the stand-in making the CloneSet's pod writes on a Deployment's pods (./spec-pod-writer.ts). */
  runs?: 'cloneset' | 'spec-pod-writer';
  qps: number;
  burst: number;
  /** Informer resync (0 = never): each resync re-delivers every cached object, a no-op reconcile. */
  resyncMs: number;
  maxConcurrentReconciles: number;
  /** Run the controller only while holding this Lease (in `namespace`), as the controller-manager does. */
  leaderElection?: ChildLeaderElection;
}

export interface ChildLeaderElection {
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface WriteSnapshot {
  /** Mutating requests, from the controller's rest_client_requests_total. */
  writes: number;
  /** The same requests by "METHOD resource[/subresource]". */
  byKind: Record<string, number>;
  /** controller_runtime_reconcile_total, every result. */
  reconciles: number;
  heapUsedBytes: number;
  /** Resident set size now (not after a GC): what a container's memory limit is charged for. */
  rssBytes: number;
  /** process.cpuUsage() of the controller child, user + system, in microseconds (cumulative). */
  cpuMicros: number;
  /** Event-loop delay since the previous snapshot (the child resets its histogram at each one). */
  eventLoop: EventLoopDelay;
}

export interface EventLoopDelay {
  p99Ms: number;
  maxMs: number;
  /** Stalls, the CPU used in them and GC pauses over the same window (./loop-stalls.ts). */
  stalls: LoopStalls;
}

/** The child's memory: as it runs, and after a full garbage collection (the live objects). */
export interface MemoryReading {
  heapUsedBytes: number;
  rssBytes: number;
  settledHeapUsedBytes: number;
  settledRssBytes: number;
  /** The process's RSS high-water mark so far. */
  maxRssBytes: number;
}

/** When the child got to each step, in ms since its process started (performance.now()). */
export interface ChildStartup {
  /** Every informer listed and synced. */
  cacheSyncedMs: number;
  /** The first reconcile finished; undefined while none has. */
  firstReconcileMs?: number;
}

/**
 * 'profile-start' starts the V8 CPU profiler in the child; 'profile-stop' stops it and answers with
 * the profile; 'memory' answers a MemoryReading, 'startup' the ChildStartup.
 */
export type ChildRequest =
  | { type: 'snapshot'; id: number }
  | { type: 'profile-start' | 'profile-stop'; id: number }
  | { type: 'memory'; id: number }
  | { type: 'startup'; id: number }
  | { type: 'stop' };
export type ChildReply =
  | { type: 'started' }
  | { type: 'snapshot'; id: number; snapshot: WriteSnapshot }
  | { type: 'memory'; id: number; memory: MemoryReading }
  | { type: 'startup'; id: number; startup: ChildStartup }
  | { type: 'profile'; id: number; profile?: unknown }
  /** The child's Manager stopped, and why (e.g. 'lost-leadership'). */
  | { type: 'stopped'; reason: string };

/** "pods", "pods/status", "clonesets/status" from an API path. */
export function apiResourceOf(path: string): string {
  const parts = path.split('?')[0]!.split('/').filter(Boolean);
  const ns = parts.indexOf('namespaces');
  // /api/v1/namespaces/<ns>/<resource>[/<name>[/<sub>]]; a namespace itself has no resource after it.
  const rest = ns >= 0 && parts.length > ns + 2 ? parts.slice(ns + 2) : parts.slice(parts[0] === 'api' ? 2 : 3);
  const [resource = '?', , sub] = rest;
  return sub ? `${resource}/${sub}` : resource;
}

/** The difference of two snapshots (after - before); the event-loop delay is after's window. */
export function diffSnapshots(before: WriteSnapshot, after: WriteSnapshot): WriteSnapshot {
  const byKind: Record<string, number> = {};
  for (const [k, v] of Object.entries(after.byKind)) {
    const d = v - (before.byKind[k] ?? 0);
    if (d !== 0) byKind[k] = d;
  }
  return {
    writes: after.writes - before.writes,
    byKind,
    reconciles: after.reconciles - before.reconciles,
    heapUsedBytes: after.heapUsedBytes,
    rssBytes: after.rssBytes,
    cpuMicros: after.cpuMicros - before.cpuMicros,
    // Already a window's worth: the histogram was reset at `before`.
    eventLoop: after.eventLoop,
  };
}
