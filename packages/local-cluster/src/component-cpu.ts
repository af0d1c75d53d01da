// CPU time used so far by each process of the local control plane (Linux /proc), so a benchmark
// can say which component a workload's work lands on: on a small machine the controllers share
// the CPUs with the apiserver, etcd and the simulated kubelet.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { componentNames, componentPid, type ComponentName } from './cluster.ts';
import { usingExternalCluster } from './paths.ts';

let ticksPerSecond: number | undefined;

/** USER_HZ, the unit of /proc/<pid>/stat and /proc/stat CPU times (getconf CLK_TCK; 100 when unknown). */
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const out = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    ticksPerSecond = Number.isFinite(out) && out > 0 ? out : 100;
  }
  return ticksPerSecond;
}

/** utime + stime of one process from the text of its /proc/<pid>/stat, in clock ticks. */
export function cpuTicksOfStat(stat: string): number {
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); utime and stime are fields 14 and 15.
  return Number(rest[11]) + Number(rest[12]);
}

/** CPU seconds (user + system) each running local control-plane process has used since it started; empty on an external cluster or without /proc. */
export async function componentCpuSeconds(): Promise<Partial<Record<ComponentName, number>>> {
  if (usingExternalCluster()) return {};
  const entries = await Promise.all(
    componentNames.map(async (component) => {
      const pid = await componentPid(component);
      if (pid === undefined) return undefined;
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
      return stat === undefined ? undefined : ([component, cpuTicksOfStat(stat) / clockTicks()] as const);
    }),
  );
  return Object.fromEntries(entries.filter((e) => e !== undefined));
}
