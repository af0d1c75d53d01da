// The "CPU by process" table of a timed scenario: per workload, the median over its runs of the
// CPU seconds each process used, their total, and how busy that kept the machine's CPUs.
import { availableParallelism } from 'node:os';
import { podWrites } from './apiserver-requests.ts';
import { PROCESS_COLUMNS, totalCpu } from './process-cpu.ts';
import { fixed, seconds, type Cell } from './result.ts';
import { median } from './samples.ts';
import type { TimedRun } from './workload-run.ts';

export const PROCESS_CPU_HEADERS = [
  'workload',
  'N',
  ...PROCESS_COLUMNS.map(([, name]) => `${name} (s)`),
  'total (s)',
  'window (s)',
  'CPUs busy',
  'stolen by the hypervisor (s)',
  'apiserver pod writes / pod (all clients)',
  'of which refused (409, 422) / pod',
];

export interface ProcessCpuMedians {
  bySeconds: Partial<Record<(typeof PROCESS_COLUMNS)[number][0], number>>;
  totalSeconds: number;
  windowMs: number;
  /** Median CPU seconds the hypervisor gave other guests during a run; NaN where /proc/stat was not read. */
  stolenSeconds: number;
  /** Pod writes the apiserver served per run, from every client, and the refused ones among them. */
  podWrites: number;
  podWritesRefused: number;
}

export function processCpuMedians(runs: readonly TimedRun[]): ProcessCpuMedians {
  const bySeconds: ProcessCpuMedians['bySeconds'] = {};
  for (const [key] of PROCESS_COLUMNS) {
    const samples = runs.map((r) => r.processCpu[key]).filter((s): s is number => s !== undefined);
    if (samples.length) bySeconds[key] = median(samples);
  }
  return {
    bySeconds,
    totalSeconds: median(runs.map((r) => totalCpu(r.processCpu))),
    windowMs: median(runs.map((r) => r.windowMs)),
    stolenSeconds: median(runs.map((r) => r.stolenSeconds ?? Number.NaN)),
    podWrites: median(runs.map((r) => podWrites(r.apiserverRequests).total)),
    podWritesRefused: median(runs.map((r) => podWrites(r.apiserverRequests).refused)),
  };
}

/** The table's caption; `window` says when the measured window starts (the create request, the patch...). */
export function processCpuCaption(window: string): string {
  return `Where the machine's CPU goes: CPU seconds each process used from ${window} until the workload's status settled (plus 1 s for trailing writes), median of the runs; "kcm" runs the Deployment and ReplicaSet controllers (and, for both workloads, the controllers that follow pods: endpoints, garbage collector...); "kwok (kubelet)" plays every pod's simulated kubelet stages; "bench watcher" is the bench process timing the pods. Every process shares the same ${availableParallelism()} CPUs, so a workload whose pods cost more writes also slows the apiserver, etcd and the simulated kubelet its pods wait for. "CPUs busy": total ÷ window. "stolen by the hypervisor": CPU seconds the machine's virtual CPUs waited while the host ran other guests (/proc/stat steal), noise from outside that no process here can cause. "apiserver pod writes / pod": every client's writes to pods the apiserver served (\`apiserver_request_total\` from its /metrics: creates, deletes, bindings, the simulated kubelet's and the controller's patches), per pod; "refused": writes the apiserver answered 409 (a resourceVersion precondition lost) or 422 (a JSON patch whose \`test\` failed). Nearly all are the simulated kubelet's: kwok plays a stage on the pod version its watch delivered, so a write by anyone landing while a stage is in flight makes it play the stage again on a version older than its own write, and the stage's test operations refuse that replay (see \`packages/local-cluster/stages/pod-stages.yaml\`). A refused patch costs the apiserver a decode and a read, not a write to etcd; a real kubelet acts on its own state, not on watch events, and makes no such replays.`;
}

export function processCpuRow(label: string, n: number, runs: readonly TimedRun[]): Cell[] {
  const m = processCpuMedians(runs);
  const cpus = availableParallelism();
  return [
    label,
    n,
    ...PROCESS_COLUMNS.map(([key]) => (m.bySeconds[key] === undefined ? 'n/a' : fixed(m.bySeconds[key]))),
    fixed(m.totalSeconds),
    seconds(m.windowMs),
    `${fixed(m.totalSeconds / (m.windowMs / 1000), 2)} of ${cpus}`,
    Number.isNaN(m.stolenSeconds) ? 'n/a' : fixed(m.stolenSeconds),
    fixed(m.podWrites / n),
    fixed(m.podWritesRefused / n),
  ];
}
