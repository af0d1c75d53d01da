// --controller-ring and --shard-name: off by default; on, the shard is named by the flag, else
// $POD_NAME, else the host name, and a name the ring protocol cannot carry is refused naming it.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type LoadOptions } from '../../src/config/load.ts';
import { ringMembership, shardOptions } from '../../src/ring-mode.ts';

function load(argv: string[], extra: Partial<LoadOptions> = {}) {
  const r = loadConfig({ argv, env: {}, knownControllers: ['cloneset'], inClusterNamespace: () => undefined, hostname: () => 'Host-1', ...extra });
  if (r.kind !== 'config') throw new Error('expected a config');
  return r.config;
}

describe('ring mode settings', () => {
  it('is off by default: one leader-elected manager, no shard name resolved', () => {
    const c = load([]);
    expect(c.controllerRing).toBe('');
    expect(c.shardName).toBe('');
    expect(ringMembership(c)).toBeUndefined();
  });

  it.each([
    { case: 'the flag', argv: ['--controller-ring=suite', '--shard-name=m-0'], env: {}, shard: 'm-0' },
    { case: '$POD_NAME', argv: ['--controller-ring=suite'], env: { POD_NAME: 'manager-7d9-x2' }, shard: 'manager-7d9-x2' },
    { case: 'the host name, lowercased', argv: ['--controller-ring=suite'], env: {}, shard: 'host-1' },
    { case: 'the environment variable', argv: [], env: { CONTROLLER_MANAGER_CONTROLLER_RING: 'suite', CONTROLLER_MANAGER_SHARD_NAME: 'm-1' }, shard: 'm-1' },
  ])('names the shard from $case', ({ argv, env, shard }) => {
    expect(ringMembership(load(argv, { env }))).toEqual({ ring: 'suite', shard });
  });

  it.each([
    { argv: ['--controller-ring=Suite'], names: '--controller-ring' },
    { argv: [`--controller-ring=${'r'.repeat(64)}`], names: '--controller-ring' },
    { argv: ['--controller-ring=suite', '--shard-name=M_0'], names: '--shard-name' },
    { argv: ['--controller-ring=suite', '--leader-election-renew-deadline=20s'], names: '--leader-election-lease-duration' },
  ])('refuses $argv naming $names', ({ argv, names }) => {
    expect(() => load(argv)).toThrow(ConfigError);
    expect(() => load(argv)).toThrow(names);
  });

  it('the shard keeps its own Lease in the leader-election namespace, timed like the leader Lease', () => {
    const c = load(['--controller-ring=suite', '--shard-name=m-0', '--leader-election-namespace=sys', '--leader-election-lease-duration=20s']);
    const o = shardOptions(ringMembership(c)!, c);
    expect(o.leaderElection).toMatchObject({ namespace: 'sys', name: 'm-0', identity: 'm-0', leaseDurationMs: 20_000, releaseOnCancel: true, labels: { 'alpha.sharding.timebertt.dev/controllerring': 'suite' } });
    expect(o.shard.resources.map((r) => `${r.group}/${r.resource}`)).toEqual(['apps.kruise.io/clonesets', '/pods', '/persistentvolumeclaims', 'apps/controllerrevisions', 'apps.kusionstack.io/podtransitionrules']);
  });
});
