// What held the controller child's event loop, beside monitorEventLoopDelay's histogram: a
// stall's length alone cannot tell a long synchronous stretch from a process waiting for one of
// the shared CPUs. For each stall (a short timer that came back more than STALL_MS late) this
// records the CPU the process used during it (all threads: V8 compiles and collects garbage on
// threads of its own) and the CPU of the main thread alone, the tighter bound on the longest
// synchronous stretch: on a machine whose CPUs the apiserver and etcd keep busy, a stall can be
// the process waiting for a CPU, which costs the main thread nothing. V8's garbage-collection
// pauses (the main thread stopped) are counted too.
import { PerformanceObserver, performance } from 'node:perf_hooks';

/** A tick later than this counts as a stall. */
export const STALL_MS = 20;
// One process.cpuUsage() per tick: at a 2 ms tick with two reads it was the controller child's
// largest self time under the profiler (8% of its busy time in a 300-pod scale-out).
export const TICK_MS = 5;

export interface LoopStalls {
  /** Ticks more than STALL_MS late. */
  stalls: number;
  /** The longest stall, and the process CPU used during it. */
  longestMs: number;
  longestCpuMs: number;
  /** The most process CPU used during any one stall. */
  maxCpuMs: number;
  /** The most CPU the main thread used during any one stall: no synchronous stretch was longer. */
  maxMainThreadCpuMs: number;
  gcPauses: number;
  gcPauseMaxMs: number;
  gcPauseTotalMs: number;
}

export const NO_STALLS: LoopStalls = { stalls: 0, longestMs: 0, longestCpuMs: 0, maxCpuMs: 0, maxMainThreadCpuMs: 0, gcPauses: 0, gcPauseMaxMs: 0, gcPauseTotalMs: 0 };

/** The pure part: one tick's lateness and CPU (the process's, the main thread's), or one GC pause, folded into the window. */
export function addTick(w: LoopStalls, lateMs: number, cpuMs: number, mainThreadCpuMs = cpuMs): LoopStalls {
  if (lateMs <= STALL_MS) return w;
  const longer = lateMs > w.longestMs;
  return {
    ...w,
    stalls: w.stalls + 1,
    longestMs: longer ? lateMs : w.longestMs,
    longestCpuMs: longer ? cpuMs : w.longestCpuMs,
    maxCpuMs: Math.max(w.maxCpuMs, cpuMs),
    maxMainThreadCpuMs: Math.max(w.maxMainThreadCpuMs, mainThreadCpuMs),
  };
}

export function addGcPause(w: LoopStalls, ms: number): LoopStalls {
  return { ...w, gcPauses: w.gcPauses + 1, gcPauseMaxMs: Math.max(w.gcPauseMaxMs, ms), gcPauseTotalMs: w.gcPauseTotalMs + ms };
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

function mainThreadCpuMicros(): number {
  const { user, system } = process.threadCpuUsage();
  return user + system;
}

/** Starts the timer and the GC observer; `take` answers the window since the last call and starts a new one. */
export function watchLoopStalls(): { take: () => LoopStalls; stop: () => void } {
  let window = NO_STALLS;
  let last = performance.now();
  let lastCpuMicros = cpuMicros();
  let lastMainThreadCpuMicros = mainThreadCpuMicros();
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = cpuMicros();
    const mainThreadCpu = mainThreadCpuMicros();
    window = addTick(window, now - last - TICK_MS, (cpu - lastCpuMicros) / 1000, (mainThreadCpu - lastMainThreadCpuMicros) / 1000);
    last = now;
    lastCpuMicros = cpu;
    lastMainThreadCpuMicros = mainThreadCpu;
  }, TICK_MS);
  timer.unref();
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window = addGcPause(window, entry.duration);
  });
  gc.observe({ entryTypes: ['gc'] });
  return {
    take: () => {
      const taken = window;
      window = NO_STALLS;
      return taken;
    },
    stop: () => {
      clearInterval(timer);
      gc.disconnect();
    },
  };
}
