// Shared steps of the timed scenarios: create or patch a workload, time it until the watcher
// sees the wanted pods, let its status settle, and collect the writes it made.
import { jsonPatch, type GroupVersionResource, type KubeObject } from '@cloneset-suite/kube-runtime';
import { ControllerProcess } from './controller-process.ts';
import { diffSnapshots, type ControllerChildOptions, type WriteSnapshot } from './controller-protocol.ts';
import { benchClient, cloneSetResource, deploymentResource, now, sleep } from './kube.ts';
import { NamespaceObserver, controllerWrites, type ObservedWrites } from './observer.ts';
import type { PodGoal } from './pod-goal.ts';
import { processCpuBetween, processCpuNow, type ProcessCpu } from './process-cpu.ts';
import { machineCpuNow } from './machine-cpu.ts';
import { apiserverRequestCounts, countsBetween, type RequestCounts } from './apiserver-requests.ts';

export type Kind = 'CloneSet' | 'Deployment';

export const CONTROLLER_COMPONENTS: Record<Kind, readonly string[]> = {
  CloneSet: ['cloneset-controller'],
  Deployment: ['deployment-controller', 'replicaset-controller'],
};

const resourceOf = (kind: Kind): GroupVersionResource => (kind === 'CloneSet' ? cloneSetResource : deploymentResource);

interface WorkloadStatus {
  metadata?: { generation?: number };
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; replicas?: number; readyReplicas?: number; updatedReplicas?: number; availableReplicas?: number };
}

/** The workload's own status agrees that `replicas` pods are updated and ready. */
export async function waitStatusSettled(kind: Kind, ns: string, name: string, replicas: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const w = (await benchClient().resource<KubeObject>(resourceOf(kind)).get(ns, name)) as WorkloadStatus;
    const s = w.status;
    if (
      s &&
      s.observedGeneration === w.metadata?.generation &&
      s.replicas === replicas &&
      s.readyReplicas === replicas &&
      s.updatedReplicas === replicas &&
      (kind === 'CloneSet' || s.availableReplicas === replicas)
    )
      return;
    if (Date.now() > deadline) throw new Error(`${kind} ${ns}/${name} status did not settle: ${JSON.stringify(s)}`);
    await sleep(200);
  }
}

export interface TimedRun {
  /** From the create/patch request to the watcher seeing the goal. */
  ms: number;
  /** From the same request to each milestone the caller asked for (e.g. all pods created). */
  milestonesMs: Record<string, number>;
  /** The controller child's own count (its registry): the CloneSet controller's, or the stand-in's beside a Deployment; undefined for a Deployment alone. */
  controller?: WriteSnapshot;
  /** Writes seen in the namespace that the controller under test made. */
  observed: ObservedWrites;
  observedControllerWrites: number;
  /** Per pod created during the run, when each milestone was first seen, in ms from the request. */
  podMilestonesMs: Partial<Record<string, number>>[];
  /** CPU seconds by process over the same window as `controller` (request to status settled + 1 s). */
  processCpu: ProcessCpu;
  /** That window's length in ms. */
  windowMs: number;
  /** CPU seconds the hypervisor gave other guests over the window (/proc/stat steal): noise from outside the machine. */
  stolenSeconds?: number;
  /** CPU seconds the whole machine was busy over the window (/proc/stat): the measured processes, other tenants and the kernel. */
  machineBusySeconds?: number;
  /** Requests the apiserver served in that window, every client's (see apiserver-requests.ts). */
  apiserverRequests: RequestCounts;
}

export interface Session {
  ns: string;
  kind: Kind;
  observer: NamespaceObserver;
  controller: ControllerProcess | undefined;
}

/**
 * Observer and controller child for one namespace; stopped after `body`. The child runs the
 * CloneSet controller for a CloneSet, and for a Deployment only when `controllerOptions.runs`
 * asks for the stand-in making the CloneSet's pod writes.
 */
export async function withSession<T>(
  kind: Kind,
  ns: string,
  body: (s: Session) => Promise<T>,
  controllerOptions: Partial<ControllerChildOptions> = {},
): Promise<T> {
  const observer = await NamespaceObserver.start(ns);
  const child = kind === 'CloneSet' || controllerOptions.runs === 'spec-pod-writer';
  const controller = child ? await ControllerProcess.start({ namespace: ns, ...controllerOptions }) : undefined;
  try {
    return await body({ ns, kind, observer, controller });
  } finally {
    await controller?.stop();
    observer.stop();
  }
}

export interface TimedOptions {
  /** Further goals, each timed from the same request (e.g. all pods created). */
  milestones?: Record<string, PodGoal>;
  /** How long the workload's status may take to agree once the pods met the goal (default 30 s). */
  settleTimeoutMs?: number;
}

/**
 * Runs `write` (the bench's own `ownWrites` API writes), then waits for `goal` on the pods and
 * for the workload's status to settle; returns the time to the goal and the writes made.
 */
export async function timed(
  s: Session,
  name: string,
  replicas: number,
  ownWrites: number,
  write: () => Promise<unknown>,
  goal: PodGoal,
  timeoutMs: number,
  { milestones = {}, settleTimeoutMs = 30_000 }: TimedOptions = {},
): Promise<TimedRun> {
  const before = await s.controller?.snapshot();
  const requestsBefore = await apiserverRequestCounts();
  const cpuBefore = await processCpuNow();
  const machineBefore = await machineCpuNow();
  s.observer.resetCounts();
  const t0 = now();
  // Registered before the write, so a milestone is timed at the pod event that reached it.
  const reached = Object.entries(milestones).map(
    async ([what, check]) => {
      const at = await s.observer.waitFor(`${what} (${s.ns}/${name})`, check, timeoutMs).catch(() => Number.NaN);
      return [what, at - t0] as const;
    },
  );
  await write();
  const t1 = await s.observer.waitFor(`${s.kind} ${s.ns}/${name}`, goal, timeoutMs);
  const milestonesMs = Object.fromEntries(await Promise.all(reached));
  await waitStatusSettled(s.kind, s.ns, name, replicas, settleTimeoutMs);
  // Trailing status and Event writes belong to the run.
  await sleep(1_000);
  const after = await s.controller?.snapshot();
  const cpuAfter = await processCpuNow();
  const machineAfter = await machineCpuNow();
  const windowMs = now() - t0;
  const requestsAfter = await apiserverRequestCounts();
  const observed = s.observer.writes();
  const controller = before && after ? diffSnapshots(before, after) : undefined;
  return {
    ms: t1 - t0,
    milestonesMs,
    controller,
    processCpu: processCpuBetween(cpuBefore, cpuAfter, controller ? controller.cpuMicros / 1e6 : undefined),
    windowMs,
    ...(machineBefore && machineAfter ? { stolenSeconds: machineAfter.steal - machineBefore.steal, machineBusySeconds: machineAfter.busy - machineBefore.busy } : {}),
    apiserverRequests: countsBetween(requestsBefore, requestsAfter),
    observed,
    observedControllerWrites: controllerWrites(observed, CONTROLLER_COMPONENTS[s.kind], ownWrites),
    podMilestonesMs: s.observer.podMilestones().map((m) => Object.fromEntries(Object.entries(m).flatMap(([k, t]) => (t === undefined ? [] : [[k, t - t0]])))),
  };
}

export function createWorkload(kind: Kind, ns: string, manifest: KubeObject): Promise<KubeObject> {
  return benchClient().resource<KubeObject>(resourceOf(kind)).create(manifest, { namespace: ns });
}

export function setImage(kind: Kind, ns: string, name: string, image: string): Promise<KubeObject> {
  return benchClient()
    .resource<KubeObject>(resourceOf(kind))
    .patch(ns, name, jsonPatch([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }]));
}

/**
 * A table's "writes by kind" cell: the controller child's own writes (the stand-in's followed by
 * what the watch saw the kcm do), or, without a child, what the watch saw.
 */
export function writesByKindCell(run: TimedRun, observed: string, standIn: boolean): string {
  if (!run.controller) return observed;
  const own = formatByKind(run.controller.byKind);
  return standIn ? `stand-in: ${own}; ${observed}` : own;
}

/** "POST pods 100, PATCH clonesets/status 12" — the largest first. */
export function formatByKind(byKind: Record<string, number>): string {
  return Object.entries(byKind)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}
