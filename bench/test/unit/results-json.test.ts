import { describe, expect, it } from 'vitest';
import { REQUIRED_KEYS, buildResultsJson, jsonPathBeside, mergeResultData } from '../../src/results-json.ts';

const meta = {
  machine: '2 CPUs',
  commit: 'abc1234',
  date: '2026-11-26T00:00:00.000Z',
  mode: 'quick' as const,
  scenarios: ['scale-out'],
  estimatedSeconds: 100,
  durationSeconds: 90,
  failures: [],
};

describe('buildResultsJson', () => {
  it('carries every key the issue names, null and listed as missing when not measured', () => {
    const json = buildResultsJson(meta, { scaleOut: { ratioVsDeployment: 0.5, parameters: { replicas: 30 } }, cpu: { secondsPer100PodsCreated: Number.NaN } });
    for (const key of REQUIRED_KEYS) {
      const [group, field] = key.split('.') as [string, string];
      expect(json[group], key).toHaveProperty(field);
    }
    expect(json).toMatchObject({ machine: '2 CPUs', commit: 'abc1234', mode: 'quick', scaleOut: { ratioVsDeployment: 0.5, parameters: { replicas: 30 } } });
    expect(json.missing).toEqual(REQUIRED_KEYS.filter((k) => k !== 'scaleOut.ratioVsDeployment'));
    expect((json.cpu as Record<string, unknown>).secondsPer100PodsCreated).toBeNull();
  });

  it('survives a JSON round trip unchanged (no NaN, no undefined)', () => {
    const json = buildResultsJson(meta, { scaleOut: { samples: { cloneSetMs: [1, Number.NaN] } } });
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect((json.scaleOut as { samples: { cloneSetMs: unknown[] } }).samples.cloneSetMs).toEqual([1, null]);
  });

  it('keeps 3 decimals', () => {
    const json = buildResultsJson(meta, { scaleOut: { ratioVsDeployment: 0.42681001986739553, cloneSetMs: 2021.9176960000004 } });
    expect(json.scaleOut).toMatchObject({ ratioVsDeployment: 0.427, cloneSetMs: 2021.918 });
  });
});

describe('mergeResultData', () => {
  it('merges the fields of a group several scenarios fill', () => {
    expect(mergeResultData([{ apiWrites: { scaleOutPerPod: 3 } }, { apiWrites: { inPlacePerPod: 2 }, rollout: { ratioVsDeployment: 1 } }])).toEqual({
      apiWrites: { scaleOutPerPod: 3, inPlacePerPod: 2 },
      rollout: { ratioVsDeployment: 1 },
    });
  });
});

describe('jsonPathBeside', () => {
  it.each([
    { out: '/tmp/x.md', want: '/tmp/x.json' },
    { out: '/work/bench/results.md', want: '/work/bench/results.json' },
    { out: '/tmp/x', want: '/tmp/x.json' },
    { out: 'rel/report.txt', want: 'rel/report.txt.json' },
  ])('$out -> $want', ({ out, want }) => {
    expect(jsonPathBeside(out)).toBe(want);
  });
});
