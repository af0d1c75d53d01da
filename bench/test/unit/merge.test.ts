import { describe, expect, it } from 'vitest';
import { mergeReport, mergeResultsJson, mergedRunNote, splitReport } from '../../src/merge.ts';
import { sectionMarker } from '../../src/report.ts';
import { REQUIRED_KEYS } from '../../src/results-json.ts';

const section = (name: string, body: string): string => `${sectionMarker(name)}\n## ${name}\n\n${body}\n`;
const head = '# Bench results\n\n| date | x |\n\n## What distorts these numbers\n\n- load\n';

describe('splitReport and mergeReport', () => {
  const report = `${head}\n${section('scale-out', 'old scale-out')}\n${section('memory', 'old memory')}`;

  it('finds the head and each marked section', () => {
    const { head: h, sections } = splitReport(report);
    expect(h.trim()).toBe(head.trim());
    expect(sections.map((s) => s.name)).toEqual(['scale-out', 'memory']);
    expect(sections[1]!.text).toContain('old memory');
  });

  it('replaces a section where it stood, appends a new one, keeps the rest as it was', () => {
    const merged = mergeReport(report, [
      { name: 'memory', text: section('memory', 'new memory') },
      { name: 'scale-large', text: section('scale-large', 'large') },
    ]);
    expect(merged).toContain('old scale-out');
    expect(merged).not.toContain('old memory');
    expect(merged.indexOf('new memory')).toBeGreaterThan(merged.indexOf('old scale-out'));
    expect(merged.indexOf('large')).toBeGreaterThan(merged.indexOf('new memory'));
    expect(merged.startsWith(head.trimEnd())).toBe(true);
    expect(splitReport(merged).sections.map((s) => s.name)).toEqual(['scale-out', 'memory', 'scale-large']);
  });

  it('keeps a report written before sections were marked whole, and appends after it', () => {
    const old = `${head}\n## Scale-out 0→N\n\nunmarked\n`;
    const merged = mergeReport(old, [{ name: 'scale-large', text: section('scale-large', 'large') }]);
    expect(merged).toContain('unmarked');
    expect(merged.indexOf('large')).toBeGreaterThan(merged.indexOf('unmarked'));
  });

  it('says under a merged section which run it comes from', () => {
    const note = mergedRunNote({ date: '2026-11-28T00:00:00Z', commit: 'abc1234', mode: 'full', machine: '2 CPUs', durationSeconds: 5400.4 }, 'Load 0.9 at the start.');
    expect(note).toMatch(/^> Measured by a later run .*2026-11-28T00:00:00Z, cloneset-suite abc1234, full sizes .*2 CPUs, 5400 s in all\. Load 0\.9 at the start\.$/);
  });
});

describe('mergeResultsJson', () => {
  const meta = { machine: '2 CPUs', commit: 'def', date: 'd2', mode: 'full' as const, scenarios: ['scale-large'], estimatedSeconds: 1, durationSeconds: 2, failures: [] };
  const existing = {
    machine: '2 CPUs',
    commit: 'abc',
    date: 'd1',
    scenarios: ['scale-out', 'memory'],
    missing: REQUIRED_KEYS.filter((k) => k !== 'scaleOut.ratioVsDeployment'),
    scaleOut: { ratioVsDeployment: 1.02 },
    memory: { bytesPerPod: 1400 },
  };

  it('puts the run\'s groups in, keeps the others and the first run\'s meta, lists the merged run', () => {
    const out = mergeResultsJson(existing, meta, { scaleLarge: { leasesLost: 0 } });
    expect(out).toMatchObject({ commit: 'abc', date: 'd1', scaleOut: { ratioVsDeployment: 1.02 }, memory: { bytesPerPod: 1400 }, scaleLarge: { leasesLost: 0 } });
    expect(out.scenarios).toEqual(['scale-out', 'memory', 'scale-large']);
    expect(out.merged).toEqual([{ ...meta, groups: ['scaleLarge'] }]);
  });

  it('replaces a group the run measured again, and recomputes what is missing', () => {
    const out = mergeResultsJson(existing, { ...meta, scenarios: ['memory'] }, { memory: { bytesPerPod: 1300, jsonBytesPerPod: 4100, bytesPerPodOverJson: 0.32 } });
    expect(out.memory).toEqual({ bytesPerPod: 1300, jsonBytesPerPod: 4100, bytesPerPodOverJson: 0.32 });
    expect(out.missing).not.toContain('memory.bytesPerPod');
    expect(out.missing).not.toContain('scaleOut.ratioVsDeployment');
    expect(out.missing).toContain('webhook.podMutateP99Ms');
  });
});
