import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/client.ts';
import { LeaderElector } from '../../src/leader-election.ts';
import { createMetrics } from '../../src/metrics.ts';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.ts';
import { FakeTransport } from '../support/fake-transport.ts';
import { LeaseServer } from '../support/lease-server.ts';

async function tick(clock: FakeClock, ms: number, step = 100): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await clock.advance(step);
    await new Promise((r) => setImmediate(r));
    await flushMicrotasks();
  }
}

function candidate(server: LeaseServer, clock: FakeClock, identity: string, timeline: string[], extra: { releaseOnCancel?: boolean } = {}) {
  const transport = new FakeTransport((req) => {
    if (partitioned.value) return Promise.reject(new Error('network unreachable'));
    return server.handle(req);
  });
  const partitioned = { value: false };
  const metrics = createMetrics();
  const elector = new LeaderElector({
    client: new KubeClient({ transport, clock, qps: 0 }),
    namespace: 'kube-system',
    name: 'cloneset-controller',
    identity,
    clock,
    metrics,
    random: () => 0.5,
    ...extra,
    onStartedLeading: (signal) => {
      timeline.push(`${clock.now()} ${identity} start`);
      signal.addEventListener('abort', () => timeline.push(`${clock.now()} ${identity} stop`));
    },
  });
  const ac = new AbortController();
  const done = elector.run(ac.signal);
  return { elector, ac, done, partitioned, metrics, transport };
}

/** Parses the timeline into [identity, start, stop] intervals and checks they never overlap. */
function assertNoOverlap(timeline: string[]): void {
  let current: string | undefined;
  for (const line of timeline) {
    const [, who, what] = line.split(' ');
    if (what === 'start') {
      expect(current, `${who} started while ${current} leads`).toBeUndefined();
      current = who;
    } else {
      expect(current).toBe(who);
      current = undefined;
    }
  }
}

/** One candidate, leading after its first attempt. */
async function soleLeader() {
  const clock = new FakeClock(1_700_000_000_000);
  const server = new LeaseServer();
  const timeline: string[] = [];
  const a = candidate(server, clock, 'a', timeline);
  await tick(clock, 100);
  expect(a.elector.isLeader()).toBe(true);
  return { clock, server, timeline, a };
}

async function stopAll(clock: FakeClock, ...candidates: ReturnType<typeof candidate>[]): Promise<void> {
  for (const c of candidates) c.ac.abort();
  await tick(clock, 1000);
  await Promise.all(candidates.map((c) => c.done));
}

describe('LeaderElector', () => {
  it('validates durations like client-go', () => {
    const client = new KubeClient({ transport: new FakeTransport(), qps: 0 });
    const base = { client, namespace: 'ns', name: 'l', identity: 'a', onStartedLeading: () => undefined };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(/leaseDuration/);
    expect(() => new LeaderElector({ ...base, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).toThrow(/retryPeriod/);
  });

  it('exactly one of two candidates leads while the leader keeps renewing', async () => {
    const clock = new FakeClock(1_700_000_000_000);
    const server = new LeaseServer();
    const timeline: string[] = [];
    const a = candidate(server, clock, 'a', timeline);
    await tick(clock, 100);
    const b = candidate(server, clock, 'b', timeline);
    await tick(clock, 60_000);
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.isLeader()).toBe(false);
    expect(b.elector.leaderIdentity()).toBe('a');
    expect(server.lease?.spec?.holderIdentity).toBe('a');
    expect(server.lease?.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(timeline).toEqual(['1700000000000 a start']);
    expect(await a.metrics.registry.getSingleMetricAsString('leader_election_master_status')).toContain(
      'leader_election_master_status{name="cloneset-controller"} 1',
    );
    a.ac.abort();
    b.ac.abort();
    await tick(clock, 1000);
    await Promise.all([a.done, b.done]);
  });

  it('renews with one PUT on the version it holds: no GET while nobody else writes the lease', async () => {
    const { clock, timeline, a } = await soleLeader();
    const seen = a.transport.requests.length;
    await tick(clock, 20_000);
    const renewals = a.transport.requests.slice(seen).map((r) => r.method);
    expect(renewals.length).toBeGreaterThanOrEqual(8);
    expect(new Set(renewals)).toEqual(new Set(['PUT']));
    expect(timeline).toEqual(['1700000000000 a start']);
    await stopAll(clock, a);
  });

  it('a lease taken behind its back: the fast-path PUT conflicts, the re-read shows the new holder, and it stops leading', async () => {
    const { clock, server, timeline, a } = await soleLeader();
    const taken = server.lease!;
    server.lease = { ...taken, metadata: { ...taken.metadata, resourceVersion: String(++server.rv) }, spec: { ...taken.spec, holderIdentity: 'x' } };
    await tick(clock, 3_000);
    expect(a.elector.isLeader()).toBe(false);
    expect(timeline).toEqual(['1700000000000 a start', expect.stringMatching(/ a stop$/)]);
    expect(a.transport.requests.some((r) => r.method === 'GET')).toBe(true);
    await stopAll(clock, a);
  });

  it('a partitioned leader stops acting before the other takes over, and the takeover happens within the lease duration', async () => {
    const clock = new FakeClock(0);
    const server = new LeaseServer();
    const timeline: string[] = [];
    const a = candidate(server, clock, 'a', timeline);
    await tick(clock, 100);
    const b = candidate(server, clock, 'b', timeline);
    await tick(clock, 10_000);
    a.partitioned.value = true; // "killed": no more renewals, no release
    const cutAt = clock.now();
    await tick(clock, 30_000);
    expect(a.elector.isLeader()).toBe(false);
    expect(b.elector.isLeader()).toBe(true);
    assertNoOverlap(timeline);
    const aStop = Number(timeline.find((l) => l.endsWith('a stop'))!.split(' ')[0]);
    const bStart = Number(timeline.find((l) => l.endsWith('b start'))!.split(' ')[0]);
    expect(aStop).toBeLessThanOrEqual(cutAt + 10_000); // renewDeadline
    expect(bStart - cutAt).toBeLessThanOrEqual(15_000 + 2 * 2_400); // lease duration + retry slack
    expect(server.lease?.spec?.leaseTransitions).toBe(1);
    await a.done; // one run is one term
    b.ac.abort();
    await tick(clock, 1000);
    await b.done;
  });

  it('releases the lease on shutdown so the follower takes over at its next retry', async () => {
    const clock = new FakeClock(0);
    const server = new LeaseServer();
    const timeline: string[] = [];
    const a = candidate(server, clock, 'a', timeline);
    await tick(clock, 100);
    const b = candidate(server, clock, 'b', timeline);
    await tick(clock, 5_000);
    a.ac.abort();
    const stoppedAt = clock.now();
    await tick(clock, 100);
    await a.done;
    await tick(clock, 3_000);
    expect(b.elector.isLeader()).toBe(true);
    // a's last write gave the lease up (empty holder) before b took it.
    expect(server.holders.filter((h, i) => h !== server.holders[i - 1])).toEqual(['a', '', 'b']);
    const bStart = Number(timeline.find((l) => l.endsWith('b start'))!.split(' ')[0]);
    expect(bStart - stoppedAt).toBeLessThanOrEqual(2_400 + 200);
    assertNoOverlap(timeline);
    b.ac.abort();
    await tick(clock, 1000);
    await b.done;
  });

  it('still releases when its last renew landed unseen (stale resourceVersion): re-reads once', async () => {
    const clock = new FakeClock(0);
    const server = new LeaseServer();
    const timeline: string[] = [];
    const a = candidate(server, clock, 'a', timeline);
    await tick(clock, 3_000);
    expect(a.elector.isLeader()).toBe(true);
    // A renew whose response never came back: same holder, newer version than a has seen.
    server.lease = { ...server.lease!, metadata: { ...server.lease!.metadata, resourceVersion: String(++server.rv) } };
    a.ac.abort();
    await tick(clock, 100);
    await a.done;
    expect(server.lease?.spec?.holderIdentity).toBe('');
  });

  it('without releaseOnCancel the lease must expire first', async () => {
    const clock = new FakeClock(0);
    const server = new LeaseServer();
    const timeline: string[] = [];
    const a = candidate(server, clock, 'a', timeline, { releaseOnCancel: false });
    await tick(clock, 100);
    const b = candidate(server, clock, 'b', timeline);
    await tick(clock, 5_000);
    a.ac.abort();
    await tick(clock, 100);
    await a.done;
    expect(server.lease?.spec?.holderIdentity).toBe('a');
    await tick(clock, 9_000);
    expect(b.elector.isLeader()).toBe(false);
    await tick(clock, 10_000);
    expect(b.elector.isLeader()).toBe(true);
    b.ac.abort();
    await tick(clock, 1000);
    await b.done;
  });
});
