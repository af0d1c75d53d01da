// The whole machine's busy and stolen CPU time, from /proc/stat: a window's CPU split into what the
// measured processes used and what the rest of the machine did (a process the bench does not
// name, or the kernel), so "the machine was busy" is a number, not a guess from the load average.
import { readFile } from 'node:fs/promises';
import { clockTicks } from '@cloneset-suite/local-cluster';

export interface MachineCpu {
  /** Seconds the CPUs ran something here: user, nice, system, irq, softirq. */
  busy: number;
  /** Seconds a virtual CPU wanted to run but the hypervisor ran another guest: CPU this machine lost. */
  steal: number;
}

/** The aggregate "cpu" line of /proc/stat (in USER_HZ ticks) in seconds; undefined without one. */
export function machineCpuOfProcStat(text: string, ticksPerSecond: number): MachineCpu | undefined {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return undefined;
  // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  return { busy: (user + nice + system + irq + softirq) / ticksPerSecond, steal: steal / ticksPerSecond };
}

/** The machine's CPU seconds since boot; undefined where /proc/stat is not readable. */
export async function machineCpuNow(): Promise<MachineCpu | undefined> {
  const text = await readFile('/proc/stat', 'utf8').catch(() => undefined);
  return text === undefined ? undefined : machineCpuOfProcStat(text, clockTicks());
}
