import { describe, expect, it } from 'vitest';
import { parseCommand, parseTimeout } from '../../src/args.ts';

const connection = { kubeconfig: undefined, context: undefined, namespace: undefined };

describe('parseCommand', () => {
  const cases: [string[], unknown][] = [
    [['rollout', 'status', 'clone/web'], { verb: 'status', name: 'web', watch: true, timeoutMs: 0, output: undefined, connection }],
    [['rollout', 'status', 'clonesets', 'web', '--watch=false', '--timeout=1m30s'], { verb: 'status', name: 'web', watch: false, timeoutMs: 90_000 }],
    [['rollout', 'pause', 'cloneset.apps.kruise.io/web', '-n', 'prod', '--context', 'c', '--kubeconfig=/k'], { verb: 'pause', connection: { kubeconfig: '/k', context: 'c', namespace: 'prod' } }],
    [['partition', 'clonesets.v1beta1.apps.kruise.io/web', '1'], { verb: 'partition', name: 'web', value: '1' }],
    [['pods', 'clonesets.v1alpha1.apps.kruise.io', 'web'], { verb: 'pods', name: 'web' }],
    [['rollout', 'resume', 'clone/web', '-o', 'yaml'], { verb: 'resume', output: 'yaml' }],
    [['rollout', 'restart', 'clone/web'], { verb: 'restart', watch: true, timeoutMs: 0 }],
    [['rollout', 'restart', 'clone/web', '--timeout=2m'], { verb: 'restart', watch: true, timeoutMs: 120_000 }],
    [['rollout', 'restart', 'clone/web', '--watch=false'], { verb: 'restart', watch: false }],
    [['rollout', 'restart', 'clone/web', '-o', 'yaml'], { verb: 'restart', watch: false, output: 'yaml' }],
    [['rollout', 'undo', 'clone/web', '--to-revision=3'], { verb: 'undo', toRevision: 3 }],
    [['rollout', 'undo', 'clone/web'], { verb: 'undo', toRevision: 0 }],
    [['rollout', 'history', 'clone/web', '--revision', '2'], { verb: 'history', revision: 2 }],
    [['set', 'image', 'clone/web', 'a=b:1', 'c=d:2'], { verb: 'set-image', images: ['a=b:1', 'c=d:2'] }],
    [['partition', 'clone/web', '20%'], { verb: 'partition', value: '20%' }],
    [['pods', 'clone/web', '-w', '-o', 'json'], { verb: 'pods', watch: true, output: 'json' }],
    [['pods', 'clone/web'], { verb: 'pods', watch: false }],
    [['pods', 'clone/web', '--feature-gates=CloneSetShortHash=true'], { verb: 'pods', gates: { CloneSetShortHash: true } }],
    [['plan', 'clone/web', '-o', 'json'], { verb: 'plan', name: 'web', output: 'json', gates: { PreparingUpdateAsUpdate: true, CloneSetShortHash: false } }],
    [['plan', 'clone/web', '--feature-gates=CloneSetShortHash=true,PreparingUpdateAsUpdate=false'], { verb: 'plan', gates: { CloneSetShortHash: true, PreparingUpdateAsUpdate: false } }],
  ];
  it.each(cases)('%j', (argv, expected) => {
    expect(parseCommand(argv)).toMatchObject(expected as object);
  });

  it('prints usage for no arguments or --help', () => {
    expect(parseCommand([])).toMatchObject({ verb: 'help' });
    expect(parseCommand(['rollout', 'status', '--help'])).toMatchObject({ verb: 'help' });
  });

  const errors: [string[], string][] = [
    [['rollout', 'status', 'deployment/web'], 'only CloneSets are supported (clone/NAME), got "deployment/web"'],
    [['rollout', 'status'], 'required resource not specified'],
    [['rollout', 'status', 'clone/'], 'resource name may not be empty'],
    [['rollout', 'frobnicate', 'clone/web'], 'unknown command "rollout frobnicate"'],
    [['scale', 'clone/web'], 'unknown command "scale"'],
    [['rollout', 'undo', 'clone/web', '--to-revision=x'], 'invalid --to-revision "x"'],
    [['rollout', 'status', 'clone/web', '--timeout=5'], 'invalid --timeout "5"'],
    [['rollout', 'status', 'clone/web', '-o', 'wide'], 'unable to match a printer suitable for the output format "wide"'],
    [['rollout', 'status', 'clone/web', '--bogus'], "Unknown option '--bogus'"],
    [['partition', 'clone/web'], 'give exactly one partition'],
    [['plan', 'clone/web', '--feature-gates=Nope=true'], 'unknown feature gate "Nope"'],
    [['rollout', 'history', 'clone/web', '--feature-gates=CloneSetShortHash=true'], '--feature-gates applies to plan and pods only'],
    [['plan', 'clone/web', 'extra'], 'unexpected arguments: extra'],
    [['rollout', 'pause', 'clone/web', 'extra'], 'unexpected arguments: extra'],
    [['rollout', 'restart', 'clone/web', '-o', 'json', '--watch'], '--watch follows the rollout with status lines, -o prints the object: give one of them'],
  ];
  it.each(errors)('%j is refused: %s', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(message);
  });
});

describe('parseTimeout', () => {
  it.each([
    ['0', 0],
    ['500ms', 500],
    ['30s', 30_000],
    ['1h2m3s', 3_723_000],
    ['1.5m', 90_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseTimeout(text)).toBe(ms);
  });
  it.each(['', '5', 's', '1d', '1m x'])('%j is refused', (text) => {
    expect(() => parseTimeout(text)).toThrow('invalid --timeout');
  });
});
