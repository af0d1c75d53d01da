import { describe, expect, it } from 'vitest';
import { ViolationLog } from './violation-log.ts';

describe('ViolationLog', () => {
  it('counts every violation, keeps the details of the first few of each kind', () => {
    const log = new ViolationLog(2);
    for (let i = 0; i < 7; i++) log.record({ invariant: 'surge', detail: `15 active pods (${i})`, atMs: 16_500 + i * 250 });
    log.record({ invariant: 'unavailable', detail: '3 unavailable', atMs: 20_000 });
    expect(log.total).toBe(8);
    expect(Object.fromEntries(log.counts)).toEqual({
      surge: { count: 7, firstAtMs: 16_500, lastAtMs: 18_000 },
      unavailable: { count: 1, firstAtMs: 20_000, lastAtMs: 20_000 },
    });
    expect(log.details.map((v) => v.detail)).toEqual(['15 active pods (0)', '15 active pods (1)', '3 unavailable']);
    expect(log.summary()).toContain('surge 7 (+16500ms to +18000ms)');
  });

  it('says so when nothing broke', () => {
    expect(new ViolationLog().summary()).toBe('0 violations');
  });
});
