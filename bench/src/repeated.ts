// Runs a scenario's variants (CloneSet, Deployment...) several times in alternating order and
// collects each variant's runs, plus the per-run numbers the tables and results.json take from
// them.
import { alternatingOrder } from './alternation.ts';
import { sampleStats, type SampleStats } from './samples.ts';
import type { TimedRun } from './workload-run.ts';

export interface Variant {
  key: string;
  /** For the log line. */
  label: string;
  run: () => Promise<TimedRun>;
}

export async function runAlternating(variants: readonly Variant[], repeats: number, log: (line: string) => void, what: string): Promise<Record<string, TimedRun[]>> {
  const runs: Record<string, TimedRun[]> = Object.fromEntries(variants.map((v) => [v.key, []]));
  for (const { variant, repeat } of alternatingOrder(variants, repeats)) {
    log(`${what}: ${variant.label} (run ${repeat + 1}/${repeats})`);
    runs[variant.key]!.push(await variant.run());
  }
  return runs;
}

/** The time to the goal of each run. */
export const timesOf = (runs: readonly TimedRun[]): SampleStats => sampleStats(runs.map((r) => r.ms));

/** When each run reached a milestone (NaN where it was not seen). */
export const milestonesOf = (runs: readonly TimedRun[], what: string): SampleStats => sampleStats(runs.map((r) => r.milestonesMs[what] ?? Number.NaN));

/** The controller's own API writes per pod, per run (NaN for the Deployment: not countable). */
export const writesPerPodOf = (runs: readonly TimedRun[], pods: number): SampleStats => sampleStats(runs.map((r) => (r.controller ? r.controller.writes / pods : Number.NaN)));

export const observedWritesPerPodOf = (runs: readonly TimedRun[], pods: number): SampleStats => sampleStats(runs.map((r) => r.observedControllerWrites / pods));

/** The controller child's CPU seconds per 100 pods, per run. */
export const cpuPer100PodsOf = (runs: readonly TimedRun[], pods: number): SampleStats =>
  sampleStats(runs.map((r) => (r.controller ? (r.controller.cpuMicros / 1e6 / pods) * 100 : Number.NaN)));

export const loopP99Of = (runs: readonly TimedRun[]): SampleStats => sampleStats(runs.map((r) => r.controller?.eventLoop.p99Ms ?? Number.NaN));
export const loopMaxOf = (runs: readonly TimedRun[]): SampleStats => sampleStats(runs.map((r) => r.controller?.eventLoop.maxMs ?? Number.NaN));
