// Repeated measurements: the median and the range of a scenario's samples, and the ratio the
// issue's targets are stated in (Deployment time / CloneSet time, so ≥ 1.0 means as fast).

export interface SampleStats {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

/** The middle sample (the mean of the two middle ones for an even count); NaN without samples. */
export function median(samples: readonly number[]): number {
  const finite = samples.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const mid = Math.floor(finite.length / 2);
  return finite.length % 2 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
}

/**
 * The index of the sample at the median (the lower middle one for an even count): the run whose
 * details a report shows beside the median of several. -1 without a finite sample.
 */
export function medianIndex(samples: readonly number[]): number {
  const order = samples.map((v, i) => [v, i] as const).filter(([v]) => Number.isFinite(v)).sort((a, b) => a[0] - b[0]);
  return order.length ? order[Math.floor((order.length - 1) / 2)]![1] : -1;
}

/** Median and range of the finite samples; every sample is kept (NaN ones too, as null in JSON). */
export function sampleStats(samples: readonly number[]): SampleStats {
  const finite = samples.filter(Number.isFinite);
  return {
    median: median(finite),
    min: finite.length ? Math.min(...finite) : Number.NaN,
    max: finite.length ? Math.max(...finite) : Number.NaN,
    samples: [...samples],
  };
}

/** baseline / measured: how many times faster than the baseline (NaN when either is missing). */
export function speedRatio(baselineMs: number, measuredMs: number): number {
  return Number.isFinite(baselineMs) && Number.isFinite(measuredMs) && measuredMs > 0 ? baselineMs / measuredMs : Number.NaN;
}

/** "4.81 (4.20–5.93)" in seconds, or the single value when there is one sample. */
export function formatSeconds(s: SampleStats): string {
  const f = (ms: number): string => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : 'n/a');
  return s.samples.length > 1 ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : f(s.median);
}
