import { describe, expect, it } from 'vitest';
import { COMPUTE_MS_PER_TURN, runInTurns } from '../../src/util/yield.ts';

describe('runInTurns', () => {
  it('gives the event loop a turn at the first yield once the turn has lasted COMPUTE_MS_PER_TURN, and runs short stages through', async () => {
    let ms = 0;
    const seen: string[] = [];
    setImmediate(() => seen.push('a callback already due'));
    function* stages(): Generator<void, number, void> {
      seen.push('short stage 1');
      yield;
      seen.push('short stage 2');
      ms += COMPUTE_MS_PER_TURN - 1;
      yield;
      seen.push('the stage that fills the turn');
      ms += 1;
      yield;
      seen.push('after the turn');
      ms += 1;
      yield;
      seen.push('last');
      return 42;
    }
    expect(await runInTurns(stages(), () => ms)).toBe(42);
    expect(seen).toEqual(['short stage 1', 'short stage 2', 'the stage that fills the turn', 'a callback already due', 'after the turn', 'last']);
  });

  it('a computation that never fills a turn ends without waiting on the loop', async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    function* stages(count: number): Generator<void, string, void> {
      for (let i = 0; i < count; i++) yield;
      return 'done';
    }
    expect(await runInTurns(stages(5), () => 0)).toBe('done');
    expect(ran).toBe(false);
  });
});
