import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_OUT, USAGE, parseBenchArgs } from '../../src/options.ts';

const known = ['scale-out', 'rollout', 'settled'];

describe('parseBenchArgs', () => {
  it.each([
    { args: [], want: { quick: false, scenarios: known, out: DEFAULT_OUT, help: false } },
    { args: ['--quick'], want: { quick: true, scenarios: known, out: DEFAULT_OUT, help: false } },
    { args: ['--only=rollout, scale-out', '--out=/tmp/x.md'], want: { quick: false, scenarios: ['rollout', 'scale-out'], out: '/tmp/x.md', help: false } },
    { args: ['--help'], want: { quick: false, scenarios: known, out: DEFAULT_OUT, help: true } },
  ])('$args', ({ args, want }) => {
    expect(parseBenchArgs(args, known)).toEqual(want);
  });

  it('names an unknown scenario', () => {
    expect(() => parseBenchArgs(['--only=rollout,nope'], known)).toThrow(/unknown scenario "nope" in --only/);
  });

  it('refuses an unknown option', () => {
    expect(() => parseBenchArgs(['--outt=/tmp/x'], known)).toThrow(/outt/);
  });
});

describe('npm run bench from the repo root', () => {
  it('hands the options to the bench, not to npm', () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    // npm would take --help as its own (printing run-script's help) if the root script did not forward it.
    const r = spawnSync('npm', ['run', '--silent', 'bench', '--', '--help'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(USAGE);
  });
});
