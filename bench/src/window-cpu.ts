// Where the machine's CPU went during a measured window: the control plane's processes, the
// bench's (its load generator included), the server under test, and the rest of the machine.
// A latency that grows while the server's own handler times stay short is CPU the server waited
// for; this says who had it.
import { machineCpuNow, type MachineCpu } from './machine-cpu.ts';
import { fixed } from './result.ts';
import { PROCESS_COLUMNS, processCpuBetween, processCpuNow, totalCpu, type ProcessCpu } from './process-cpu.ts';
import { now } from './kube.ts';

export interface CpuReading {
  atMs: number;
  processes: ProcessCpu;
  machine?: MachineCpu;
}

export interface WindowCpu {
  seconds: number;
  /** CPU seconds by display name, the server under test as "server". */
  byProcess: Record<string, number>;
  /** The machine's busy CPU seconds, what no named process used (the kernel, anything else), and what the hypervisor took. */
  machineBusy?: number;
  rest?: number;
  steal?: number;
}

export async function windowCpuNow(): Promise<CpuReading> {
  const [processes, machine] = await Promise.all([processCpuNow(), machineCpuNow()]);
  return { atMs: now(), processes, ...(machine ? { machine } : {}) };
}

export function windowCpu(before: CpuReading, after: CpuReading, serverSeconds: number): WindowCpu {
  const used = processCpuBetween(before.processes, after.processes);
  const byProcess: Record<string, number> = { server: serverSeconds };
  for (const [key, label] of PROCESS_COLUMNS) if (used[key] !== undefined) byProcess[key === 'bench' ? 'the bench (its load generator)' : label] = used[key];
  const named = totalCpu(used) + serverSeconds;
  const m = before.machine && after.machine ? { busy: after.machine.busy - before.machine.busy, steal: after.machine.steal - before.machine.steal } : undefined;
  return {
    seconds: (after.atMs - before.atMs) / 1000,
    byProcess,
    ...(m ? { machineBusy: m.busy, rest: Math.max(0, m.busy - named), steal: m.steal } : {}),
  };
}

export function windowCpuNote(w: WindowCpu, cpus: number): string {
  const parts = Object.entries(w.byProcess)
    .sort((a, b) => b[1] - a[1])
    .map(([name, s]) => `${name === 'server' ? 'the webhook server' : name} ${fixed(s)}`);
  const machine =
    w.machineBusy !== undefined
      ? `the machine's ${cpus} CPUs were busy for ${fixed(w.machineBusy)} of ${fixed(w.seconds * cpus)} CPU seconds (${fixed((w.machineBusy / (w.seconds * cpus)) * 100, 0)}%): `
      : '';
  const rest = w.rest !== undefined ? `, the rest of the machine ${fixed(w.rest)}` : '';
  const steal = w.steal !== undefined ? `; stolen by the hypervisor for other guests: ${fixed(w.steal)}` : '';
  return `CPU during the median paced window (${fixed(w.seconds)} s): ${machine}${parts.join(', ')}${rest}${steal} (CPU seconds).`;
}
