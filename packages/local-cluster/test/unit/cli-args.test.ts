import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCliArgs } from '../../src/cli-args.ts';

describe('the local cluster command line', () => {
  it.each([
    [['--cluster=incluster'], { cluster: 'incluster', realNode: false, kustomize: false }],
    [['--cluster', 'a-1'], { cluster: 'a-1', realNode: false, kustomize: false }],
    [['--real-node', '--cluster=x'], { cluster: 'x', realNode: true, kustomize: false }],
    [['--cluster=x', '--kustomize'], { cluster: 'x', realNode: false, kustomize: true }],
    [[], { cluster: undefined, realNode: false, kustomize: false }],
  ])('%j parses', (argv, expected) => {
    expect(parseCliArgs(argv, ['--cluster', '--real-node', '--kustomize'])).toEqual(expected);
  });

  it.each([
    [['--cluster='], /--cluster: "" is not a cluster name/],
    [['--cluster'], /--cluster: "" is not a cluster name/],
    [['--cluster=Upper'], /--cluster: "Upper"/],
    [['--cluster=../x'], /--cluster: "\.\.\/x"/],
    [['--cluster=-x'], /--cluster/],
    [['--nodes=3'], /unknown argument "--nodes=3"/],
  ])('%j is refused naming the argument', (argv, message) => {
    expect(() => parseCliArgs(argv, ['--cluster', '--real-node'])).toThrow(message);
  });

  it('refuses an argument the command does not take', () => {
    expect(() => parseCliArgs(['--real-node'], ['--cluster'])).toThrow(/unknown argument "--real-node" \(accepted: --cluster\)/);
    expect(() => parseCliArgs(['--kustomize'], ['--cluster', '--real-node'])).toThrow(/unknown argument "--kustomize" \(accepted: --cluster, --real-node\)/);
  });

  it('accepts exactly the DNS labels as names, so a name never escapes its directory or makes an invalid bridge', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 70 }), (name) => {
        const label = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name);
        const parsed = (() => {
          try {
            return parseCliArgs([`--cluster=${name}`], ['--cluster']).cluster;
          } catch {
            return undefined;
          }
        })();
        expect(parsed).toBe(label ? name : undefined);
      }),
    );
  });
});
