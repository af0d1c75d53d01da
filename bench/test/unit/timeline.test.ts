import { describe, expect, it } from 'vitest';
import { reached, timelineQuantiles } from '../../src/timeline.ts';

describe('reached', () => {
  it.each([
    { pod: {}, want: ['created'] },
    { pod: { spec: { nodeName: 'n-1' } }, want: ['created', 'scheduled'] },
    { pod: { spec: { nodeName: 'n-1' }, status: { conditions: [{ type: 'InPlaceUpdateReady', status: 'True' }] } }, want: ['created', 'scheduled', 'gate written'] },
    { pod: { spec: { nodeName: 'n-1' }, status: { conditions: [{ type: 'InPlaceUpdateReady', status: 'False' }, { type: 'Ready', status: 'True' }] } }, want: ['created', 'scheduled', 'Ready'] },
  ])('$want', ({ pod, want }) => {
    expect(reached(pod)).toEqual(want);
  });
});

describe('timelineQuantiles', () => {
  it('gives when 10%, 50%, 90% and all pods reached each milestone, NaN where too few did', () => {
    const perPod = Array.from({ length: 10 }, (_, i) => ({ created: i * 10, scheduled: 100 + i * 10, ...(i < 5 ? { Ready: 1000 + i } : {}) }));
    const q = timelineQuantiles(perPod, 10);
    expect(q.created).toEqual([0, 40, 80, 90]);
    expect(q.scheduled).toEqual([100, 140, 180, 190]);
    expect(q['gate written']).toEqual([Number.NaN, Number.NaN, Number.NaN, Number.NaN]);
    expect(q.Ready).toEqual([1000, 1004, Number.NaN, Number.NaN]);
  });
});
