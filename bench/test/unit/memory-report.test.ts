import { describe, expect, it } from 'vitest';
import { memorySize, type MemoryReport } from '../../src/memory-report.ts';

const MiB = 1024 * 1024;
const report = (pods: number, heapMiB: number, rssMiB: number, relistPeakRssMiB = rssMiB, relistPeakLiveHeapMiB = heapMiB): MemoryReport => ({
  pods,
  heapUsed: heapMiB * MiB,
  v8Used: heapMiB * MiB,
  rss: rssMiB * MiB,
  avgJsonBytes: 2900,
  avgServedJsonBytes: 4000,
  relistPeakRss: relistPeakRssMiB * MiB,
  relistPeakLiveHeap: relistPeakLiveHeapMiB * MiB,
  relistLoopMaxMs: 12.5,
  relistMainThreadMaxMs: 7.5,
  relistGcPauseMaxMs: 3.25,
  maxRss: (relistPeakRssMiB + 10) * MiB,
});

describe('memorySize', () => {
  const base = report(0, 40, 100);
  it('per 1,000 pods: the rise over the empty process, scaled', () => {
    const s = memorySize(base, report(10_000, 90, 200), undefined);
    expect(s.heapMiBPer1000Pods).toBeCloseTo(5, 10);
    expect(s.rssMiBPer1000Pods).toBeCloseTo(10, 10);
    expect(s.bytesPerPod).toBeCloseTo((50 * MiB) / 10_000, 6);
    expect(s.marginalBytesPerPod).toBeUndefined();
  });

  it('marginal: between two sizes, so fixed costs cancel', () => {
    const s = memorySize(base, report(10_000, 90, 200), report(1000, 45, 120));
    expect(s.marginalBytesPerPod).toBeCloseTo((45 * MiB) / 9000, 6);
  });

  it('relist headroom: peak during the relist over the settled value, never negative', () => {
    expect(memorySize(base, report(1000, 50, 150, 180, 70), undefined)).toMatchObject({ relistRssOverSettledBytes: 30 * MiB, relistLiveHeapOverSettledBytes: 20 * MiB, relistLoopMaxMs: 12.5, relistMainThreadMaxMs: 7.5, relistGcPauseMaxMs: 3.25 });
    expect(memorySize(base, report(1000, 50, 150, 140, 45), undefined)).toMatchObject({ relistRssOverSettledBytes: 0, relistLiveHeapOverSettledBytes: 0 });
  });

  it('JSON per pod is the served JSON (managedFields included), the heap per pod compared with it', () => {
    const s = memorySize(base, report(10_000, 80, 200), undefined);
    expect(s.jsonBytesPerPod).toBe(4000);
    expect(s.cachedJsonBytesPerPod).toBe(2900);
    expect(s.bytesPerPodOverJson).toBeCloseTo((40 * MiB) / 10_000 / 4000, 10);
  });

  it('no pod: no per-pod number, rather than a division by zero passed off as 0', () => {
    expect(memorySize(base, base, undefined).rssMiBPer1000Pods).toBeNaN();
    expect(memorySize(base, { ...base, avgServedJsonBytes: 0 }, undefined).bytesPerPodOverJson).toBeNaN();
  });
});
