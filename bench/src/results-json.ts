// results.json, written beside results.md: the same run, machine-readable. One object per
// scenario (its parameters, samples and ratios) plus the headline keys the targets are
// checked against; a key a run could not measure (a scenario failed or was not selected, or
// --quick skipped it) is null and named in `missing`, so a reader never mistakes absence for 0.
import path from 'node:path';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** What a scenario contributes: top-level groups (scaleOut, apiWrites...) of fields; NaN and undefined become null in the file. */
export type ResultData = Record<string, Record<string, unknown>>;

/** The keys results.json must carry, as group.field. */
export const REQUIRED_KEYS = [
  'scaleOut.ratioVsDeployment',
  'rollout.ratioVsDeployment',
  'inPlace.ratioVsDeploymentRecreate',
  'apiWrites.inPlacePerPod',
  'apiWrites.scaleOutPerPod',
  'settled.writes',
  'memory.bytesPerPod',
  'memory.jsonBytesPerPod',
  'memory.bytesPerPodOverJson',
  'webhook.podMutateP99Ms',
  'scaleOut1000.ratioVsDeployment',
  'cpu.secondsPer100PodsCreated',
  'eventLoop.p99Ms',
] as const;

export interface RunMeta {
  machine: string;
  commit: string;
  date: string;
  mode: 'full' | 'quick';
  scenarios: string[];
  estimatedSeconds: number;
  durationSeconds: number;
  failures: string[];
}

/** Groups merged field by field (several scenarios fill apiWrites and cpu). */
export function mergeResultData(parts: readonly ResultData[]): ResultData {
  const merged: ResultData = {};
  for (const part of parts) for (const [group, fields] of Object.entries(part)) merged[group] = { ...merged[group], ...fields };
  return merged;
}

/**
 * Non-finite numbers become null: JSON has no NaN, and a reader must see "not measured". Others
 * keep 3 decimals (µs for times in ms): the clock and the machine are not finer than that.
 */
export function toJsonValue(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value * 1000) / 1000 : null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonValue(v)]));
  // Functions, symbols and bigints have no JSON form; a scenario never hands them over.
  return null;
}

export function buildResultsJson(meta: RunMeta, data: ResultData): Record<string, JsonValue> {
  const groups = toJsonValue(data) as Record<string, Record<string, JsonValue>>;
  const missing: string[] = [];
  for (const key of REQUIRED_KEYS) {
    const [group, field] = key.split('.') as [string, string];
    const fields = (groups[group] ??= {});
    if (fields[field] === undefined || fields[field] === null) {
      fields[field] = null;
      missing.push(key);
    }
  }
  return { ...toJsonValue(meta) as Record<string, JsonValue>, missing, ...groups };
}

/** `/tmp/x.md` -> `/tmp/x.json`; a path without the .md extension gets .json appended. */
export function jsonPathBeside(markdownPath: string): string {
  const parsed = path.parse(markdownPath);
  return parsed.ext === '.md' ? path.join(parsed.dir, `${parsed.name}.json`) : `${markdownPath}.json`;
}
