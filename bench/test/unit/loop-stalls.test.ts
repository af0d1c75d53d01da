import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_STALLS, STALL_MS, addGcPause, addTick, watchLoopStalls } from '../../src/loop-stalls.ts';

describe('addTick', () => {
  it('leaves a tick within the stall limit out', () => {
    expect(addTick(NO_STALLS, STALL_MS, 5)).toEqual(NO_STALLS);
  });

  it('keeps the longest stall with its own CPU, and the most CPU of any stall apart', () => {
    const w = [
      [30, 25],
      [90, 10],
      [40, 35],
    ].reduce((acc, [late, cpu]) => addTick(acc, late!, cpu!), NO_STALLS);
    expect(w).toMatchObject({ stalls: 3, longestMs: 90, longestCpuMs: 10, maxCpuMs: 35 });
  });

  it("keeps the main thread's most CPU in any one stall apart from the process's", () => {
    const w = [
      [30, 25, 20],
      [90, 60, 5],
      [40, 35, 30],
    ].reduce((acc, [late, cpu, main]) => addTick(acc, late!, cpu!, main), NO_STALLS);
    expect(w).toMatchObject({ stalls: 3, maxCpuMs: 60, maxMainThreadCpuMs: 30 });
    expect(addTick(NO_STALLS, 10, 50, 50).maxMainThreadCpuMs).toBe(0);
  });

  it('never reports more stalls than ticks, nor a longest below any stall', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ min: 0, max: 1000, noNaN: true }), fc.double({ min: 0, max: 1000, noNaN: true }))), (ticks) => {
        const w = ticks.reduce((acc, [late, cpu]) => addTick(acc, late, cpu), NO_STALLS);
        const stalls = ticks.filter(([late]) => late > STALL_MS);
        expect(w.stalls).toBe(stalls.length);
        for (const [late, cpu] of stalls) {
          expect(w.longestMs).toBeGreaterThanOrEqual(late);
          expect(w.maxCpuMs).toBeGreaterThanOrEqual(cpu);
        }
      }),
    );
  });
});

describe('addGcPause', () => {
  it('counts the pauses, their sum and the longest', () => {
    expect([3, 12, 5].reduce(addGcPause, NO_STALLS)).toMatchObject({ gcPauses: 3, gcPauseTotalMs: 20, gcPauseMaxMs: 12 });
  });
});

describe('watchLoopStalls', () => {
  it('sees a synchronous stretch as a stall that used CPU, and garbage collection as pauses', async () => {
    const watch = watchLoopStalls();
    try {
      await new Promise((r) => setTimeout(r, 20));
      const until = performance.now() + 80;
      let garbage: unknown[] = [];
      while (performance.now() < until) garbage = Array.from({ length: 1000 }, (_, i) => ({ i, s: `x${i}` }));
      expect(garbage).toHaveLength(1000);
      await new Promise((r) => setTimeout(r, 50));
      const w = watch.take();
      expect(w.stalls).toBeGreaterThanOrEqual(1);
      expect(w.longestMs).toBeGreaterThanOrEqual(60);
      expect(w.maxCpuMs).toBeGreaterThan(0);
      expect(w.maxMainThreadCpuMs).toBeGreaterThan(0);
      expect(w.maxMainThreadCpuMs).toBeLessThanOrEqual(w.maxCpuMs);
      expect(w.gcPauses).toBeGreaterThan(0);
      expect(watch.take()).toMatchObject({ stalls: 0, gcPauses: 0 });
    } finally {
      watch.stop();
    }
  });
});
