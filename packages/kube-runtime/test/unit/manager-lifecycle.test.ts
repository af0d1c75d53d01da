// The Manager's one lifecycle on fake time and a scripted apiserver: which runnables run where,
// cache sync before leader work, the shutdown order and its bound, and why start() resolved.
import { describe, expect, it } from 'vitest';
import { Resources } from '../../src/client/gvr.ts';
import type { HttpRequest } from '../../src/client/transport.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { done as reconciled } from '../../src/controller/action.ts';
import type { ScaleExpectations } from '../../src/expectations.ts';
import type { Lease } from '../../src/leader-election.ts';
import { Manager, type ManagerOptions, type StopReason } from '../../src/manager.ts';
import { whenAborted, type Runnable } from '../../src/runnable.ts';
import { FakeClock, flushMicrotasks, sleep } from '../../src/util/clock.ts';
import { FakeTransport, type FakeAnswer } from '../support/fake-transport.ts';
import { LeaseServer } from '../support/lease-server.ts';

const T0 = 1_700_000_000_000;
const LEASE = { namespace: 'kube-system', name: 'mgr', identity: 'me', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** A manager on a FakeClock whose apiserver serves leases, accepts Events and lists nothing. */
function fixture(options: Partial<ManagerOptions> & { list?: (req: HttpRequest) => FakeAnswer | Promise<FakeAnswer> } = {}) {
  const clock = new FakeClock(T0);
  const leases = new LeaseServer();
  const log: string[] = [];
  const partitioned = { value: false };
  const transport = new FakeTransport((req) => {
    if (req.path.includes('/leases')) {
      if (partitioned.value) return Promise.reject(new Error('network unreachable'));
      const answer = leases.handle(req);
      if (req.method === 'PUT' && (JSON.parse(req.body ?? '{}') as Lease).spec?.holderIdentity === '') log.push('lease released');
      return answer;
    }
    if (req.path.includes('/events')) {
      log.push(`event ${req.method}`);
      return { body: { metadata: { name: 'ev', namespace: 'ns' } } };
    }
    return options.list?.(req) ?? { body: { metadata: { resourceVersion: '1' }, items: [] } };
  });
  const { list: _list, ...rest } = options;
  const manager = new Manager({ transport, clock, qps: 0, leaderElection: LEASE, gracefulShutdownTimeoutMs: 5_000, ...rest });
  return { clock, leases, log, partitioned, manager };
}

/** Logs its start and stop; `hang` ignores the stop (a reconcile that never returns). */
function recording(log: string[], name: string, needLeaderElection: boolean, o: { hang?: boolean } = {}): Runnable {
  return {
    name,
    needLeaderElection,
    async start(signal) {
      log.push(`${name} started`);
      await whenAborted(signal);
      if (o.hang) await new Promise(() => undefined);
      log.push(`${name} stopped`);
    },
  };
}

async function tick(clock: FakeClock, ms: number, step = 100): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await clock.advance(step);
    await new Promise((r) => setImmediate(r));
    await flushMicrotasks();
  }
}

function settled<T>(p: Promise<T>): { value: T | undefined } {
  const out: { value: T | undefined } = { value: undefined };
  void p.then((v) => (out.value = v));
  return out;
}

describe('Manager lifecycle', () => {
  it('a standby runs the every-replica runnables at once and the leader runnables only once it leads', async () => {
    const f = fixture();
    const now = new Date(T0).toISOString().replace('Z', '000Z');
    f.leases.lease = { metadata: { name: 'mgr', namespace: 'kube-system', resourceVersion: '7' }, spec: { holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: now, acquireTime: now } };
    f.manager.add(recording(f.log, 'webhooks', false));
    f.manager.add(recording(f.log, 'controller', true));
    const done = f.manager.start();
    await tick(f.clock, 10_000);
    expect(f.log).toEqual(['webhooks started']);
    expect(f.manager.hasSynced()).toBe(true);
    // The other holder never renews: after the lease duration this replica takes over.
    await tick(f.clock, 10_000);
    expect(f.log).toEqual(['webhooks started', 'controller started']);
    expect(f.leases.lease?.spec?.holderIdentity).toBe('me');
    f.manager.stop();
    await tick(f.clock, 1_000);
    await expect(done).resolves.toBe('signal');
  });

  it('leader runnables start only after the caches synced', async () => {
    let answerList!: () => void;
    const listed = new Promise<void>((resolve) => (answerList = resolve));
    const f = fixture({
      leaderElection: undefined,
      list: async (req) => {
        if (req.query?.watch) return { stream: (async function* () {})() };
        await listed;
        return { body: { metadata: { resourceVersion: '1' }, items: [] } };
      },
    });
    f.manager.informers.informerFor<KubeObject>(Resources.configMaps);
    f.manager.add(recording(f.log, 'controller', true));
    const done = f.manager.start();
    await tick(f.clock, 2_000);
    expect(f.log).toEqual([]);
    expect(f.manager.hasSynced()).toBe(false);
    answerList();
    await tick(f.clock, 500);
    expect(f.log).toEqual(['controller started']);
    expect(f.manager.hasSynced()).toBe(true);
    f.manager.stop();
    await tick(f.clock, 1_000);
    await expect(done).resolves.toBe('signal');
  });

  it('shuts down in order: unready, drain, flush Events, clear expectations, release the lease, stop the rest', async () => {
    const f = fixture();
    const recorder = f.manager.eventRecorder('test-controller', 'me');
    const configMaps = f.manager.informers.informerFor<KubeObject>(Resources.configMaps);
    let expectations: ScaleExpectations | undefined;
    f.manager
      .controller('ctl')
      .for(configMaps, { groupKind: { group: '', kind: 'ConfigMap' } })
      .owns(configMaps, { expectations: (o) => o.metadata?.name })
      .complete((c) => {
        expectations = c.expectations;
        return () => Promise.resolve(reconciled());
      });
    f.manager.add({
      name: 'reconciles',
      needLeaderElection: true,
      async start(signal) {
        await whenAborted(signal);
        f.log.push(`drained (unready: ${f.manager.isShuttingDown()})`);
      },
    });
    f.manager.add(recording(f.log, 'webhooks', false));
    const done = f.manager.start();
    await tick(f.clock, 1_000);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u' } };
    recorder.event(pod, 'Warning', 'FailedCreate', 'Create', 'quota exceeded');
    await tick(f.clock, 100);
    recorder.event(pod, 'Warning', 'FailedCreate', 'Create', 'quota exceeded'); // buffered: flushed in 30 s
    expectations!.expect('ns/cs', 'create', 'p-1');
    expect(f.log).toEqual(['webhooks started', 'event POST']);
    f.manager.stop();
    await tick(f.clock, 1_000);
    await expect(done).resolves.toBe('signal');
    expect(f.log).toEqual(['webhooks started', 'event POST', 'drained (unready: true)', 'event PATCH', 'lease released', 'webhooks stopped']);
    expect(expectations!.satisfied('ns/cs')).toBe(true);
  });

  it('bounds the drain by the graceful-shutdown timeout, then still releases the lease', async () => {
    const f = fixture({ gracefulShutdownTimeoutMs: 5_000 });
    f.manager.add(recording(f.log, 'stuck', true, { hang: true }));
    f.manager.add(recording(f.log, 'webhooks', false));
    const done = f.manager.start();
    await tick(f.clock, 1_000);
    f.manager.stop();
    const stoppedAt = f.clock.now();
    const result = settled(done);
    await tick(f.clock, 4_800);
    expect(f.log).not.toContain('lease released');
    expect(result.value).toBeUndefined();
    await tick(f.clock, 400);
    expect(f.log).toContain('lease released');
    expect(f.clock.now() - stoppedAt).toBeLessThanOrEqual(5_200);
    await tick(f.clock, 500);
    expect(result.value).toBe<StopReason>('signal');
    expect(f.log.slice(-2)).toEqual(['lease released', 'webhooks stopped']);
  });

  it('losing the lease stops everything with lost-leadership and writes no release', async () => {
    const f = fixture();
    f.manager.add(recording(f.log, 'controller', true));
    f.manager.add(recording(f.log, 'webhooks', false));
    const done = f.manager.start();
    await tick(f.clock, 1_000);
    expect(f.log).toEqual(['webhooks started', 'controller started']);
    f.partitioned.value = true;
    await tick(f.clock, LEASE.renewDeadlineMs + 3_000);
    await expect(done).resolves.toBe('lost-leadership');
    expect(f.log).toEqual(['webhooks started', 'controller started', 'controller stopped', 'webhooks stopped']);
    expect(f.leases.holders).not.toContain('');
  });

  it('a runnable that fails stops the manager with failed', async () => {
    const f = fixture({ leaderElection: undefined });
    f.manager.add(recording(f.log, 'controller', true));
    f.manager.add({
      name: 'certificates',
      needLeaderElection: false,
      async start() {
        await sleep(f.clock, 500);
        throw new Error('secret unreadable');
      },
    });
    const done = f.manager.start();
    await tick(f.clock, 1_000);
    await expect(done).resolves.toBe('failed');
    expect(f.log).toEqual(['controller started', 'controller stopped']);
    expect(() => f.manager.add(recording(f.log, 'late', false))).toThrow(/has started/);
  });

  it('renews the lease on its own client: a queue of reconcile requests does not cost the leadership', async () => {
    const f = fixture({ qps: 1, burst: 1 });
    f.manager.add(recording(f.log, 'controller', true));
    const done = settled(f.manager.start());
    await tick(f.clock, 1_000);
    expect(f.log).toEqual(['controller started']);
    // A write burst: 100 requests at 1 QPS keep the manager's client busy for 100 s.
    const burst = Array.from({ length: 100 }, () => f.manager.client.resource(Resources.configMaps).list({ namespace: 'ns' }).catch(() => undefined));
    await tick(f.clock, 30_000);
    expect(done.value).toBeUndefined();
    expect(f.leases.lease?.spec?.holderIdentity).toBe('me');
    expect(f.leases.writes).toBeGreaterThan(10);
    f.manager.stop();
    await tick(f.clock, 1_000);
    expect(done.value).toBe<StopReason>('signal');
    await tick(f.clock, 100_000, 1_000);
    await Promise.all(burst);
  });
});

