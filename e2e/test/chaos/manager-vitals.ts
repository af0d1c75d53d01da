// What shows a manager holding up under load, sampled from outside: /healthz asked every 250 ms
// with a 1 s deadline, the process' resident memory read from /proc, and the holder of its Lease.
import { readFileSync } from 'node:fs';
import { Resources, type KubeClient, type KubeObject } from '@cloneset-suite/kube-runtime';

interface Lease extends KubeObject {
  spec?: { holderIdentity?: string };
}

export interface Vitals {
  healthzAnswers: number;
  /** Probes not answered 200 within the deadline, with what happened. */
  healthzFailures: string[];
  slowestHealthzMs: number;
  maxRssBytes: number;
  /** Every holder the Lease was seen with, in order, without repeats. */
  holders: string[];
}

/** Resident set size of a process, from /proc/<pid>/status (VmRSS, in kB); 0 once it is gone. */
export function residentBytes(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user and system) a process has used, from /proc/<pid>/stat; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** USER_HZ: 100 on every Linux architecture Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

export function sampleVitals(o: { pid: number; healthzUrl: string; client: KubeClient; leaseNamespace: string; leaseName: string }): { stop: () => Promise<Vitals> } {
  const vitals: Vitals = { healthzAnswers: 0, healthzFailures: [], slowestHealthzMs: 0, maxRssBytes: 0, holders: [] };
  let running = true;
  const every = async (ms: number, sample: () => Promise<void>): Promise<void> => {
    while (running) {
      const started = Date.now();
      await sample();
      await new Promise((r) => setTimeout(r, Math.max(0, ms - (Date.now() - started))));
    }
  };
  const healthz = every(250, async () => {
    const started = Date.now();
    const status = await fetch(o.healthzUrl, { signal: AbortSignal.timeout(1_000) }).then((r) => r.status, (err: Error) => err.name);
    const ms = Date.now() - started;
    vitals.slowestHealthzMs = Math.max(vitals.slowestHealthzMs, ms);
    if (status === 200 && ms <= 1_000) vitals.healthzAnswers++;
    else vitals.healthzFailures.push(`${new Date().toISOString()}: ${status} after ${ms} ms`);
  });
  const memory = every(250, () => {
    vitals.maxRssBytes = Math.max(vitals.maxRssBytes, residentBytes(o.pid));
    return Promise.resolve();
  });
  const lease = every(1_000, async () => {
    // A read that fails (the apiserver busy) says nothing about the holder: skipped.
    const holder = (await o.client.resource<Lease>(Resources.leases).get(o.leaseNamespace, o.leaseName).catch(() => undefined))?.spec?.holderIdentity;
    if (holder !== undefined && vitals.holders.at(-1) !== holder) vitals.holders.push(holder);
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all([healthz, memory, lease]);
      return vitals;
    },
  };
}
