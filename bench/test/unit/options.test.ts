import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_OUT, USAGE, parseBenchArgs } from '../../src/options.ts';

const known = ['scale-out', 'rollout', 'settled'];
const defaults = { quick: false, scenarios: known, out: DEFAULT_OUT, merge: false, help: false };

describe('parseBenchArgs', () => {
  it.each([
    { args: [], want: defaults },
    { args: ['--quick'], want: { ...defaults, quick: true } },
    { args: ['--only=rollout, scale-out', '--out=/tmp/x.md'], want: { ...defaults, scenarios: ['rollout', 'scale-out'], out: '/tmp/x.md' } },
    { args: ['--help'], want: { ...defaults, help: true } },
    { args: ['--merge', '--large-replicas=2000', '--manager-size=10x200'], want: { ...defaults, merge: true, largeReplicas: 2000, managerSize: { cloneSets: 10, podsPerCloneSet: 200 } } },
  ])('$args', ({ args, want }) => {
    expect(parseBenchArgs(args, known)).toEqual(want);
  });

  it('leaves the opt-in scenarios out unless --only names them', () => {
    const all = [...known, 'scale-large'];
    expect(parseBenchArgs([], all, ['scale-large']).scenarios).toEqual(known);
    expect(parseBenchArgs(['--only=scale-large,rollout'], all, ['scale-large']).scenarios).toEqual(['scale-large', 'rollout']);
  });

  it.each([
    [['--large-replicas=0'], /--large-replicas must be a whole number from 1 to 100000, not "0"/],
    [['--large-replicas=1e4'], /--large-replicas must be a whole number/],
    [['--manager-size=50'], /--manager-size must be CLONESETSxPODS, e.g. 50x1000, not "50"/],
    [['--manager-size=0x100'], /--manager-size must be a whole number from 1 to 1000, not "0"/],
  ])('refuses %s', (args, message) => {
    expect(() => parseBenchArgs(args, known)).toThrow(message);
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
