import { describe, expect, it } from 'vitest';
import { controllerChildExecArgv, controllerNodeFlags } from '../../src/controller-process.ts';

describe('controllerChildExecArgv', () => {
  it("adds gc(), the extra flags and a CPU profile to the bench's own arguments", () => {
    const env = { BENCH_CONTROLLER_NODE_FLAGS: ' --max-semi-space-size=64  --trace-gc ', BENCH_CPU_PROF_DIR: '/tmp/prof' };
    expect(controllerChildExecArgv(env, ['--conditions=dev'])).toEqual([
      '--conditions=dev',
      '--expose-gc',
      '--max-semi-space-size=64',
      '--trace-gc',
      '--cpu-prof',
      '--cpu-prof-dir=/tmp/prof',
    ]);
  });

  it('adds only gc() when no variable is set', () => {
    expect(controllerChildExecArgv({}, [])).toEqual(['--expose-gc']);
    expect(controllerNodeFlags({})).toEqual([]);
  });
});
