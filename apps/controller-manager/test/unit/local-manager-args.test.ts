// The command line of a local manager process is one the manager's own flag parser takes, and
// says what was asked: a flag renamed in the parser fails here, not in a chaos suite or a bench.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { localManagerArgs } from '../../src/local-manager-args.ts';

const ports = { webhook: 9101, metrics: 9102, health: 9103 };
const parsed = (argv: string[]) => {
  const loaded = loadConfig({ argv, env: {}, knownControllers: [] });
  if (loaded.kind !== 'config') throw new Error('help');
  return loaded.config;
};

describe('localManagerArgs', () => {
  it('a replica of a chaos suite: its namespace, Lease and webhook names, short Lease timings, its own port for admission', () => {
    const c = parsed(
      localManagerArgs({
        kubeconfig: '/k',
        leaseNamespace: 'ns-1',
        namespace: 'ns-1',
        name: 'chaos-a',
        ports,
        webhookUrlPort: 9101,
        lease: { duration: '6s', renewDeadline: '4s', retryPeriod: '1s' },
        gracefulShutdownTimeout: '5s',
        extraArgs: ['--log-level=debug'],
      }),
    );
    expect(c).toMatchObject({
      kubeconfig: '/k',
      namespace: 'ns-1',
      leaderElectionNamespace: 'ns-1',
      leaderElectionId: 'chaos-a',
      webhookConfigurationName: 'chaos-a',
      webhookSecretName: 'chaos-a-certs',
      leaderElectionLeaseDurationMs: 6_000,
      leaderElectionRenewDeadlineMs: 4_000,
      leaderElectionRetryPeriodMs: 1_000,
      gracefulShutdownTimeoutMs: 5_000,
      metricsBindAddress: { host: '127.0.0.1', port: 9102 },
      healthProbeBindAddress: { host: '127.0.0.1', port: 9103 },
      webhookHost: '127.0.0.1',
      webhookPort: 9101,
      webhookUrlBase: 'https://127.0.0.1:9101',
      logLevel: 'debug',
    });
  });

  it('a shard of a ring behind a front: the ring and shard names, the front for admission, the shipped Lease timings', () => {
    const c = parsed(localManagerArgs({ kubeconfig: '/k', leaseNamespace: 'sys', ports, webhookUrlPort: 9200, ring: { ring: 'r', shard: 'shard-2' } }));
    expect(c).toMatchObject({ controllerRing: 'r', shardName: 'shard-2', webhookPort: 9101, webhookUrlBase: 'https://127.0.0.1:9200', leaderElectionLeaseDurationMs: 15_000 });
    expect(c.namespace).toBe('');
  });
});
