// `npm run bench -- --only=... --merge`: the scenarios this run measured replace their sections of
// the existing report and their groups of results.json; everything else is kept as it was, so a
// run of hours (scale-large) and a run of the rest need not share one quiet window. A merged
// section says under its heading which run it comes from; results.json lists the merged runs.
import { REQUIRED_KEYS, type JsonValue, type RunMeta } from './results-json.ts';

const MARKER = /^<!-- bench-scenario: ([\w-]+) -->$/m;

export interface MarkedSection {
  name: string;
  text: string;
}

/** The report before its first marked section, and each marked section (its marker included). */
export function splitReport(md: string): { head: string; sections: MarkedSection[] } {
  const parts = md.split(/^(?=<!-- bench-scenario: [\w-]+ -->$)/m);
  const sections: MarkedSection[] = [];
  let head = '';
  for (const part of parts) {
    const m = MARKER.exec(part);
    if (m && part.startsWith(m[0])) sections.push({ name: m[1]!, text: part });
    else head += part;
  }
  return { head, sections };
}

const withNewline = (s: string): string => (s.endsWith('\n') ? s : `${s}\n`);

/** Each fresh section replaces the one of the same name where it stood, or is appended. */
export function mergeReport(existing: string, fresh: readonly MarkedSection[]): string {
  const { head, sections } = splitReport(existing);
  const merged = sections.map((s) => fresh.find((f) => f.name === s.name) ?? s);
  for (const f of fresh) if (!sections.some((s) => s.name === f.name)) merged.push(f);
  return [withNewline(head), ...merged.map((s) => withNewline(s.text))].join('\n').replace(/\n{3,}/g, '\n\n');
}

/** The line under a merged section's heading: which run measured it, and in what conditions. */
export function mergedRunNote(meta: Pick<RunMeta, 'date' | 'commit' | 'mode' | 'machine' | 'durationSeconds'>, conditions: string): string {
  return `> Measured by a later run than the sections above and merged into this report (\`--merge\`): ${meta.date}, cloneset-suite ${meta.commit}, ${meta.mode} sizes unless the section says otherwise, ${meta.machine}, ${meta.durationSeconds.toFixed(0)} s in all. ${conditions}`;
}

type Json = Record<string, JsonValue>;

/**
 * The existing results.json with this run's groups (`groups`: only those its scenarios filled)
 * in place of the old ones, its scenarios added, and the run listed under `merged`; `missing`
 * is recomputed over the result.
 */
export function mergeResultsJson(existing: Json, meta: RunMeta, groups: Json): Json {
  const out: Json = { ...existing, ...groups };
  const scenarios = Array.isArray(existing.scenarios) ? (existing.scenarios as string[]) : [];
  out.scenarios = [...new Set([...scenarios, ...meta.scenarios])];
  const merged = Array.isArray(existing.merged) ? existing.merged : [];
  out.merged = [...merged, { ...(meta as unknown as Json), groups: Object.keys(groups) }];
  out.missing = REQUIRED_KEYS.filter((key) => {
    const [group, field] = key.split('.') as [string, string];
    const g = out[group];
    return !g || typeof g !== 'object' || Array.isArray(g) || g[field] === null || g[field] === undefined;
  });
  return out;
}
