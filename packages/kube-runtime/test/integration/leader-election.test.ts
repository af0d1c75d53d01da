// Two candidates against the real apiserver: exactly one leads; when it is killed the other takes
// over within the lease duration; and a fenced counter shows they never acted at the same time.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resources } from '../../src/client/gvr.ts';
import type { HttpRequest, HttpResponse, Transport } from '../../src/client/transport.ts';
import { LeaderElector } from '../../src/leader-election.ts';
import { fencedIncrements, type FenceWrite } from './fixtures/fenced-worker.ts';
import { createNamespace, kubeTransport, newClient, waitFor, type ConfigMap } from './support.ts';

const LEASE_MS = 6_000;
const RETRY_MS = 1_000;

interface Line {
  event: string;
  identity: string;
  at: number;
  count?: number;
}

function startCandidate(identity: string, namespace: string, lines: Line[]): ChildProcess {
  const script = fileURLToPath(new URL('./fixtures/candidate.ts', import.meta.url));
  const child = spawn(process.execPath, ['--conditions=source', '--no-warnings', script, identity, namespace], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env },
  });
  let buf = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    let nl = buf.indexOf('\n');
    while (nl >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.startsWith('{')) lines.push(JSON.parse(line) as Line);
      nl = buf.indexOf('\n');
    }
  });
  return child;
}

/**
 * The fence: every reported write has a distinct count (conditional writes), at most
 * `maxUnreported` writes went unreported (a process killed between its write and its print), and
 * in counter order the writers form contiguous runs (A..A B..B, never A B A): no two leaders acted
 * at the same time.
 */
function assertFenced(writes: { who: string; count: number }[], finalCount: number, maxUnreported: number): void {
  const sorted = [...writes].sort((a, b) => a.count - b.count);
  const counts = sorted.map((w) => w.count);
  expect(new Set(counts).size).toBe(counts.length);
  expect(Math.max(0, ...counts)).toBeLessThanOrEqual(finalCount);
  expect(finalCount - counts.length).toBeLessThanOrEqual(maxUnreported);
  const runs = sorted.map((w) => w.who).filter((who, i, all) => who !== all[i - 1]);
  expect(new Set(runs).size, `writers interleaved: ${runs.join(',')}`).toBe(runs.length);
}

/** A transport that can be partitioned from the apiserver. */
class PartitionableTransport implements Transport {
  readonly host: string;
  private readonly inner: Transport;
  partitioned = false;
  constructor(inner: Transport) {
    this.inner = inner;
    this.host = inner.host;
  }
  send(req: HttpRequest): Promise<HttpResponse> {
    return this.partitioned ? Promise.reject(new Error('partitioned')) : this.inner.send(req);
  }
}

describe('leader election against kube-apiserver', () => {
  const client = newClient();
  let ns: { name: string; remove: () => Promise<void> };
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    ns = await createNamespace(client, 'kr-leader');
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await ns?.remove().catch(() => undefined);
  });

  it('one leads; after it is killed the other takes over within the lease duration; never both', async () => {
    const lines: Line[] = [];
    const a = startCandidate('candidate-a', ns.name, lines);
    children.push(a);
    await waitFor('a to lead', () => lines.some((l) => l.identity === 'candidate-a' && l.event === 'leading'), 30_000);
    const b = startCandidate('candidate-b', ns.name, lines);
    children.push(b);
    await waitFor('b to campaign', () => lines.some((l) => l.identity === 'candidate-b' && l.event === 'candidate'), 30_000);
    await new Promise((r) => setTimeout(r, 3 * RETRY_MS));
    expect(lines.filter((l) => l.event === 'leading').map((l) => l.identity)).toEqual(['candidate-a']);

    a.kill('SIGKILL');
    const killedAt = Date.now();
    await waitFor('b to take over', () => lines.some((l) => l.identity === 'candidate-b' && l.event === 'leading'), 30_000);
    const tookOver = lines.find((l) => l.identity === 'candidate-b' && l.event === 'leading')!.at;
    // client-go's bound: the follower notices the last renewal up to one (jittered) retry late,
    // waits the lease duration from then, and acts at its next retry.
    expect(tookOver - killedAt).toBeLessThanOrEqual(LEASE_MS + 2 * 1.2 * RETRY_MS + 500);
    await waitFor('b to write', () => lines.some((l) => l.identity === 'candidate-b' && l.event === 'write'), 10_000);
    b.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 200));

    const fence = await client.resource<ConfigMap>(Resources.configMaps).get(ns.name, 'fence');
    const writes = lines.filter((l) => l.event === 'write').map((l) => ({ who: l.identity, count: l.count ?? -1 }));
    expect(writes.some((w) => w.who === 'candidate-a')).toBe(true);
    // Two kills, each may swallow the report of one write.
    assertFenced(writes, Number(fence.data?.count), 2);
  }, 120_000);

  it('a partitioned leader stops acting before the other starts (fenced counter)', async () => {
    const leaseName = 'kube-runtime-it-partition';
    // A fresh fence, separate from the first test's.
    await client.resource<ConfigMap>(Resources.configMaps).delete(ns.name, 'fence').catch(() => undefined);
    const writes: FenceWrite[] = [];
    const timeline: string[] = [];
    const cands = ['p-a', 'p-b'].map((identity) => {
      const leaseTransport = new PartitionableTransport(kubeTransport());
      const workClient = newClient(); // the leader's own writes are not partitioned: the worst case
      const ac = new AbortController();
      const elector = new LeaderElector({
        client: newClient({ transport: leaseTransport }),
        namespace: ns.name,
        name: leaseName,
        identity,
        leaseDurationMs: LEASE_MS,
        renewDeadlineMs: 4_000,
        retryPeriodMs: RETRY_MS,
        releaseOnCancel: false,
        onStartedLeading: async (signal) => {
          timeline.push(`start ${identity}`);
          signal.addEventListener('abort', () => timeline.push(`stop ${identity}`));
          await fencedIncrements(workClient, ns.name, `${identity}`, signal, (w) => writes.push(w));
        },
      });
      const done = elector.run(ac.signal);
      return { identity, elector, leaseTransport, ac, done };
    });
    await waitFor('a leader', () => cands.some((c) => c.elector.isLeader()), 30_000);
    const leader = cands.find((c) => c.elector.isLeader())!;
    const follower = cands.find((c) => c !== leader)!;
    await new Promise((r) => setTimeout(r, 2_000));
    leader.leaseTransport.partitioned = true;
    await waitFor('the follower to lead', () => follower.elector.isLeader(), 30_000);
    await new Promise((r) => setTimeout(r, 2_000));
    follower.ac.abort();
    leader.ac.abort();
    await Promise.all(cands.map((c) => c.done));

    expect(timeline.slice(0, 3)).toEqual([`start ${leader.identity}`, `stop ${leader.identity}`, `start ${follower.identity}`]);
    const fence = await client.resource<ConfigMap>(Resources.configMaps).get(ns.name, 'fence');
    // In-process every write is reported.
    assertFenced(writes, Number(fence.data?.count), 0);
    expect(new Set(writes.map((w) => w.who))).toEqual(new Set([leader.identity, follower.identity]));
  }, 120_000);
});
