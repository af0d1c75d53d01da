import { describe, expect, it } from 'vitest';
import { runInTurns } from '../../src/util/yield.ts';

describe('runInTurns', () => {
  it('runs the stages to the value they return, giving the event loop a turn at every yield', async () => {
    const seen: string[] = [];
    function* stages(): Generator<void, number, void> {
      seen.push('stage 1');
      setImmediate(() => seen.push('a timer or socket callback already due'));
      yield;
      seen.push('stage 2');
      yield;
      seen.push('stage 3');
      return 42;
    }
    expect(await runInTurns(stages())).toBe(42);
    expect(seen).toEqual(['stage 1', 'a timer or socket callback already due', 'stage 2', 'stage 3']);
  });

  it('a computation without a yield ends in the same turn; one yield gives the loop its turn', async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    function* stages(count: number): Generator<void, string, void> {
      for (let i = 0; i < count; i++) yield;
      return 'done';
    }
    expect(await runInTurns(stages(0))).toBe('done');
    expect(ran).toBe(false);
    expect(await runInTurns(stages(1))).toBe('done');
    expect(ran).toBe(true);
  });
});
