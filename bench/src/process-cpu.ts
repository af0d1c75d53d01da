// CPU seconds by process over one timed run: the local control plane's components, the
// controller under test and the bench's own watcher. On the bench's 2 shared CPUs every
// extra write a controller makes is paid again by the apiserver, etcd, the scheduler and the
// simulated kubelet, so this says where a run's CPU went, not only the controller's share.
import { componentCpuSeconds } from '@cloneset-suite/local-cluster';

/** Display name of each process column, in table order. */
export const PROCESS_COLUMNS = [
  ['kube-apiserver', 'apiserver'],
  ['etcd', 'etcd'],
  ['kwok-controller', 'kwok (kubelet)'],
  ['kube-scheduler', 'scheduler'],
  ['kube-controller-manager', 'kcm'],
  ['controller', 'CloneSet controller or stand-in'],
  ['bench', 'bench watcher'],
] as const;

export type ProcessCpu = Partial<Record<(typeof PROCESS_COLUMNS)[number][0], number>>;

/** Cumulative CPU seconds of the control plane and of this (bench) process now. */
export async function processCpuNow(): Promise<ProcessCpu> {
  const own = process.cpuUsage();
  return { ...(await componentCpuSeconds()), bench: (own.user + own.system) / 1e6 };
}

/** What each process used between two readings; `controllerSeconds` is the controller child's (absent for a Deployment alone: it runs inside the kcm). */
export function processCpuBetween(before: ProcessCpu, after: ProcessCpu, controllerSeconds?: number): ProcessCpu {
  const used: ProcessCpu = {};
  for (const [key] of PROCESS_COLUMNS) {
    const a = after[key];
    const b = before[key];
    if (a !== undefined && b !== undefined) used[key] = a - b;
  }
  if (controllerSeconds !== undefined) used.controller = controllerSeconds;
  return used;
}

/** The sum over every measured process. */
export const totalCpu = (used: ProcessCpu): number => Object.values(used).reduce((sum, s) => sum + (s ?? 0), 0);
