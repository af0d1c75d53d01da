// Hostile and broken input: fast-check generates CloneSet manifests with one thing
// wrong (wrong types, int32 overflow, negative counts, bad selectors, bad percentages, 1 MiB
// annotations, pod templates the apiserver refuses at pod creation). Each is sent as a
// server-side dry run through the real admission chain (schema + the manager's webhooks): it is
// refused with a message naming the field, or, only when its pods are what is broken, accepted.
// The accepted kinds are then created for real: the manager reports them with the FailedScale
// condition and FailedCreate Events, backs off (counted on its own /metrics), never crashes, and a
// healthy CloneSet beside them keeps its normal scale-out latency.
// `npm test`: 200 cases; `npm run test:chaos`: 1000. CHAOS_SEED=<n> replays the same cases.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, mergePatch } from '@cloneset-suite/kube-runtime';
import { eventually, getJson } from '@cloneset-suite/local-cluster';
import { hostileCloneSet, validCloneSet, type HostileCase } from '../src/chaos/hostile-manifests.ts';
import { sumSamples } from '../src/chaos/metrics.ts';
import { chaosLong, chaosSeed } from '../src/chaos/seeded.ts';
import { cloneSetsOf, observerClient, type CloneSetObject } from './chaos/cluster-client.ts';
import { startChaosEnvironment, type ChaosEnvironment, type ManagerReplica } from './chaos/manager-process.ts';

const RUNS = chaosLong() ? 1000 : 200;
const seed = chaosSeed();
const client = observerClient();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe(`hostile and broken CloneSet input (seed ${seed}, ${RUNS} cases)`, () => {
  let env: ChaosEnvironment;
  let ns: { name: string };
  let manager: ManagerReplica;
  const accepted = new Map<string, HostileCase>();
  const outcomes = { refused: 0, accepted: 0 };

  beforeAll(async () => {
    console.log(`[chaos-hostile] seed ${seed} (replay with CHAOS_SEED=${seed})`);
    env = await startChaosEnvironment('chaos-hostile');
    ({ manager } = env);
    ns = { name: env.namespace };
  });

  afterAll(async () => {
    await env?.teardown();
  });

  it(`refuses each generated manifest naming the field, or accepts it only when its pods are what is broken`, async () => {
    // Every case runs (no early stop), so one run lists every kind of input handled wrongly.
    const wrong: string[] = [];
    await fc.assert(
      fc.asyncProperty(hostileCloneSet('hostile'), async (c) => {
        const outcome = await cloneSetsOf(client)
          .create(c.manifest as unknown as CloneSetObject, { namespace: ns.name, dryRun: true })
          .then(
            () => undefined,
            (err: unknown) => err,
          );
        if (outcome === undefined) {
          outcomes.accepted++;
          if (!c.mayBeAccepted) wrong.push(`${c.label}: accepted at admission`);
          const kind = c.label.replace(/\s.*$/, '');
          if (c.mayBeAccepted && !accepted.has(kind)) accepted.set(kind, c);
          return;
        }
        outcomes.refused++;
        const err = outcome as Error;
        // A refusal, not an outage: 4xx with the field named.
        const code = err instanceof ApiError ? err.code : 0;
        if (code < 400 || code >= 500) wrong.push(`${c.label}: answered ${code}: ${err.message}`);
        else if (!err.message.includes(c.field)) wrong.push(`${c.label}: refused without naming ${c.field}: ${err.message.slice(0, 300)}`);
      }),
      { numRuns: RUNS, seed },
    );
    console.log(`[chaos-hostile] ${RUNS} cases: ${outcomes.refused} refused naming the field, ${outcomes.accepted} accepted (broken pod templates: ${[...accepted.keys()].join(', ')})`);
    expect([...new Set(wrong)]).toEqual([]);
    expect(manager.pid).toBeDefined();
    expect(manager.unexpectedExits).toEqual([]); // never exited (and was restarted) on its own
    expect(manager.starts).toBe(1);
  });

  it('reports accepted broken CloneSets with a condition and an Event, backs off, and keeps a healthy CloneSet at its normal latency', async () => {
    const healthy = validCloneSet('healthy');
    (healthy.spec.template as { metadata: { annotations?: Record<string, string> } }).metadata.annotations = { 'sim.cloneset-suite.io/ready-delay': '300ms' };
    await cloneSetsOf(client).create(healthy, { namespace: ns.name });
    const readyAt = (n: number) => eventually(`healthy at ${n} ready`, async () => (await cloneSetsOf(client).get(ns.name, 'healthy')).status?.readyReplicas === n, { timeoutMs: 60_000, intervalMs: 100 });
    await readyAt(1);
    let replicas = 1;
    const scaleLatency = async (): Promise<number> => {
      const t = Date.now();
      await cloneSetsOf(client).patch(ns.name, 'healthy', mergePatch({ spec: { replicas: ++replicas } }));
      await readyAt(replicas);
      return Date.now() - t;
    };
    const baseline = [await scaleLatency(), await scaleLatency()];

    expect(accepted.size).toBeGreaterThan(0);
    const broken: string[] = [];
    for (const [kind, c] of accepted) {
      const name = `broken-${broken.length}`;
      const cs = structuredClone(c.manifest) as ReturnType<typeof validCloneSet>;
      cs.metadata.name = name;
      cs.spec.replicas = 2;
      cs.spec.selector = { matchLabels: { app: name } };
      (cs.spec.template as { metadata: { labels: Record<string, string> } }).metadata.labels = { app: name };
      await cloneSetsOf(client).create(cs, { namespace: ns.name });
      broken.push(name);
      console.log(`[chaos-hostile] created ${name}: ${kind} (${c.label})`);
    }
    for (const name of broken) {
      await eventually(`${name}: FailedScale condition and a FailedCreate Event`, async () => {
        const cs = await cloneSetsOf(client).get(ns.name, name);
        const condition = cs.status?.conditions?.find((x) => x.type === 'FailedScale' && x.status === 'True');
        const events = await getJson<{ items: { reason?: string; regarding?: { name?: string } }[] }>(['events.events.k8s.io', '-n', ns.name]);
        const event = events?.items.some((e) => e.reason === 'FailedCreate' && e.regarding?.name === name);
        return condition !== undefined && event;
      }, { timeoutMs: 60_000, intervalMs: 500 });
    }
    const refusedCreates = async () => {
      const text = await manager.metrics();
      return ['403', '422'].reduce((n, code) => n + sumSamples(text, 'rest_client_requests_total', { method: 'POST', code }), 0);
    };
    // Backoff: after the first attempts, refused creates become rare (a hot loop would make hundreds).
    await sleep(20_000);
    const firstAttempts = await refusedCreates();
    const before = await refusedCreates();
    const during = [await scaleLatency(), await scaleLatency()];
    await sleep(Math.max(0, 20_000 - during.reduce((a, b) => a + b, 0)));
    const windowCreates = (await refusedCreates()) - before;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(
      `[chaos-hostile] ${broken.length} broken CloneSets: ${firstAttempts} refused pod creates by 20 s after their Events, ${windowCreates} in the next 20 s; healthy scale-out latency ${Math.round(mean(baseline))} ms before, ${Math.round(mean(during))} ms beside them`,
    );
    // Retried (more than the first try of each pod), but backing off (few in the second window).
    expect(firstAttempts).toBeGreaterThan(broken.length * 2);
    expect(windowCreates).toBeLessThanOrEqual(broken.length * 2 * 4);
    expect(mean(during)).toBeLessThan(Math.max(2 * mean(baseline), mean(baseline) + 3_000));
    expect(manager.pid).toBeDefined();
    expect(manager.unexpectedExits).toEqual([]); // never exited (and was restarted) on its own
    expect(manager.starts).toBe(1);
    expect((await fetch(`http://127.0.0.1:${manager.probesPort}/healthz`)).status).toBe(200);
  });
});
