import fc from 'fast-check';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { cloneSetSeriesOf, progressDeadlineExceeded, replicasByState } from '../../src/metrics/cloneset-series.ts';
import { LIFECYCLE_PHASES, PhaseClock } from '../../src/metrics/phase-clock.ts';
import { newDecisions, ruleDecisions } from '../../src/metrics/rule-decisions.ts';
import { timedWebhookCaller, webhookCallHistogram } from '../../src/metrics/webhook-calls.ts';
import { registerProductMetrics } from '../../src/metrics/product-metrics.ts';
import { ALERT_RULES } from '../../src/observability/alerts.ts';
import { dashboardQueries } from '../../src/observability/dashboard.ts';
import { metricNamesIn } from '../../src/observability/promql-names.ts';
import type { KubeObject, Manager, ResourceEventHandler } from '@cloneset-suite/kube-runtime';

const PHASE = 'podopslifecycle.cloneset-suite.io/phase';
const pod = (uid: string, phase: string | undefined, extra: Record<string, string> = {}) => ({
  metadata: { uid, labels: { ...(phase ? { [PHASE]: phase } : {}), ...extra } },
});

describe('replicasByState', () => {
  it.each([
    ['no status yet', { spec: { replicas: 3 } }, { desired: 3, current: 0, updated: 0, ready: 0, available: 0, unavailable: 3, updated_ready: 0 }],
    [
      'mid-rollout',
      { spec: { replicas: 4 }, status: { replicas: 5, readyReplicas: 4, availableReplicas: 3, updatedReplicas: 2, updatedReadyReplicas: 1 } },
      { desired: 4, current: 5, updated: 2, ready: 4, available: 3, unavailable: 1, updated_ready: 1 },
    ],
    [
      'surge: more available than desired is not negative unavailability',
      { spec: { replicas: 2 }, status: { replicas: 3, readyReplicas: 3, availableReplicas: 3, updatedReplicas: 3, updatedReadyReplicas: 3 } },
      { desired: 2, current: 3, updated: 3, ready: 3, available: 3, unavailable: 0, updated_ready: 3 },
    ],
  ])('%s', (_name, cs, expected) => {
    expect(replicasByState(cs as Parameters<typeof replicasByState>[0])).toEqual(expected);
  });

  it('reads ProgressDeadlineExceeded only from a False Progressing condition', () => {
    const withCondition = (status: 'True' | 'False', reason: string) =>
      ({ spec: {}, status: { replicas: 0, readyReplicas: 0, availableReplicas: 0, updatedReplicas: 0, updatedReadyReplicas: 0, conditions: [{ type: 'Progressing', status, reason }] } }) as Parameters<
        typeof progressDeadlineExceeded
      >[0];
    expect(progressDeadlineExceeded(withCondition('False', 'ProgressDeadlineExceeded'))).toBe(true);
    expect(progressDeadlineExceeded(withCondition('True', 'NewReplicaSetAvailable'))).toBe(false);
    expect(progressDeadlineExceeded({ spec: {} } as Parameters<typeof progressDeadlineExceeded>[0])).toBe(false);
  });
});

describe('ruleDecisions', () => {
  it('counts passed and rejected pods of status.details', () => {
    expect(ruleDecisions(undefined)).toEqual({ passed: 0, rejected: 0 });
    expect(ruleDecisions({ details: [{ name: 'a', passed: true }, { name: 'b', passed: false }, { name: 'c', passed: false }] })).toEqual({ passed: 1, rejected: 2 });
  });
});

describe('newDecisions', () => {
  const d = (name: string, passed: boolean) => ({ name, passed });
  it.each([
    ['first status', undefined, [d('a', true), d('b', false)], { passed: 1, rejected: 1 }],
    ['unchanged verdicts count nothing', [d('a', true)], [d('a', true)], { passed: 0, rejected: 0 }],
    ['a flip and a new pod', [d('a', false), d('gone', true)], [d('a', true), d('c', false)], { passed: 1, rejected: 1 }],
  ])('%s', (_name, before, after, expected) => {
    expect(newDecisions(before ? { details: before } : undefined, { details: after })).toEqual(expected);
  });

  it('property: never counts more decisions than pods in the new status', () => {
    const details = fc.uniqueArray(fc.record({ name: fc.constantFrom('a', 'b', 'c', 'd', 'e'), passed: fc.boolean() }), { selector: (x) => x.name });
    fc.assert(
      fc.property(details, details, (before, after) => {
        const made = newDecisions({ details: before }, { details: after });
        expect(made.passed + made.rejected).toBeLessThanOrEqual(after.length);
        expect(newDecisions({ details: after }, { details: after })).toEqual({ passed: 0, rejected: 0 });
      }),
    );
  });
});

describe('PhaseClock', () => {
  it('reports the phase a pod left and the time spent in it', () => {
    const clock = new PhaseClock();
    expect(clock.observe(pod('u1', 'ServiceAvailable'), 1_000)).toBeUndefined();
    expect(clock.observe(pod('u1', 'ServiceAvailable'), 5_000)).toBeUndefined();
    expect(clock.observe(pod('u1', 'PreCheck'), 11_000)).toEqual({ phase: 'ServiceAvailable', seconds: 10 });
    expect(clock.snapshot(14_000).get('PreCheck')).toEqual({ pods: 1, oldestSeconds: 3 });
    clock.forget(pod('u1', 'PreCheck'));
    expect(clock.snapshot(14_000).get('PreCheck')).toEqual({ pods: 0, oldestSeconds: 0 });
  });

  it('dates a pod first seen mid-phase from its latest lifecycle label timestamp', () => {
    const clock = new PhaseClock();
    const enteredNs = String(40_000n * 1_000_000n);
    clock.observe(pod('u1', 'PreCheck', { 'operating.podopslifecycle.kusionstack.io/op1': String(10_000n * 1_000_000n), 'pre-check.podopslifecycle.kusionstack.io/op1': enteredNs }), 100_000);
    expect(clock.snapshot(100_000).get('PreCheck')).toEqual({ pods: 1, oldestSeconds: 60 });
  });

  it('ignores pods without the phase label or with an unknown value', () => {
    const clock = new PhaseClock();
    clock.observe(pod('u1', undefined), 0);
    clock.observe(pod('u2', 'Bogus'), 0);
    expect([...clock.snapshot(0).values()].reduce((n, a) => n + a.pods, 0)).toBe(0);
  });

  it('property: per-phase pod counts add up to the pods whose last observation had a phase; ages are never negative', () => {
    const phase = fc.constantFrom(...LIFECYCLE_PHASES, undefined);
    const step = fc.record({ uid: fc.constantFrom('a', 'b', 'c', 'd'), phase, dt: fc.nat(10_000), forget: fc.boolean() });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const clock = new PhaseClock();
        const last = new Map<string, string | undefined>();
        let now = 0;
        for (const s of steps) {
          now += s.dt;
          if (s.forget) {
            clock.forget(pod(s.uid, s.phase));
            last.delete(s.uid);
            continue;
          }
          const left = clock.observe(pod(s.uid, s.phase), now);
          if (left) expect(left.seconds).toBeGreaterThanOrEqual(0);
          last.set(s.uid, s.phase);
        }
        const snap = clock.snapshot(now);
        for (const p of LIFECYCLE_PHASES) {
          expect(snap.get(p)!.pods).toBe([...last.values()].filter((v) => v === p).length);
          expect(snap.get(p)!.oldestSeconds).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });
});

describe('timedWebhookCaller', () => {
  it('observes each call by method and outcome, and passes answers and errors through', async () => {
    const registry = new Registry();
    const histogram = webhookCallHistogram(registry);
    expect(webhookCallHistogram(registry)).toBe(histogram);
    let t = 0;
    const caller = timedWebhookCaller(
      {
        post: () => {
          t += 250;
          return Promise.resolve({ success: true });
        },
        get: () => {
          t += 2000;
          return Promise.reject(new Error('timeout'));
        },
        close: () => Promise.resolve(),
      },
      histogram,
      () => t,
    );
    await expect(caller.post({ url: 'https://x', namespace: 'ns' }, {})).resolves.toEqual({ success: true });
    await expect(caller.get({ url: 'https://x', namespace: 'ns' })).rejects.toThrow('timeout');
    const text = await registry.metrics();
    expect(text).toContain('cloneset_suite_transition_rule_webhook_call_duration_seconds_sum{method="post",outcome="success"} 0.25');
    expect(text).toContain('cloneset_suite_transition_rule_webhook_call_duration_seconds_sum{method="get",outcome="error"} 2');
    expect(text).toContain('cloneset_suite_transition_rule_webhook_call_duration_seconds_count{method="post",outcome="error"} 0');
  });

  it('closing the timed caller closes the client it wraps (the controller closes what it is given when it stops)', async () => {
    let closed = 0;
    const inner = { post: () => Promise.resolve({}), get: () => Promise.resolve({}), close: () => ((closed += 1), Promise.resolve()) };
    await timedWebhookCaller(inner, webhookCallHistogram(new Registry())).close();
    expect(closed).toBe(1);
  });
});

describe('registerProductMetrics with empty caches (a fresh manager, no CloneSet, no PodTransitionRule)', () => {
  type Cached = { metadata: { name: string; namespace: string; uid: string }; spec?: unknown; status?: unknown };
  const fixture = () => {
    const objects = new Map<string, Cached[]>();
    const manager = {
      clock: { now: () => 0 },
      informers: {
        informerFor: (resource: { resource: string }) => ({
          list: () => objects.get(resource.resource) ?? [],
          addEventHandler: () => () => undefined,
        }),
      },
    } as unknown as Manager;
    const registry = new Registry();
    registerProductMetrics({ manager, registry, namespace: undefined, cloneSets: true, lifecycle: true, transitionRules: true });
    return { objects, registry };
  };
  const sampled = (text: string) => new Set(text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => /^[a-zA-Z_:][\w:]*/.exec(l)![0]));

  it('exports every product series the dashboard and the alerts query, at 0', async () => {
    const { registry } = fixture();
    const text = await registry.metrics();
    const queried = new Set([...dashboardQueries(), ...ALERT_RULES.map((r) => r.expr)].flatMap(metricNamesIn));
    // The traffic drain histogram belongs to the traffic cooperation's registration.
    const product = [...queried].filter((n) => n.startsWith('cloneset_suite_') && !n.startsWith('cloneset_suite_traffic_') && !n.startsWith('cloneset_suite_transition_rule_webhook_'));
    expect(product.length).toBeGreaterThan(5);
    expect(product.filter((n) => !sampled(text).has(n))).toEqual([]);
    expect(text).toContain('cloneset_suite_transition_rule_pods{decision="rejected"} 0');
    expect(text).toContain('cloneset_suite_transition_rule_decisions_total{decision="passed"} 0');
    expect(text).toContain('cloneset_suite_cloneset_replicas{state="desired"} 0');
    expect(text).toMatch(/^cloneset_suite_cloneset_pods_created_total 0$/m);
  });

  it('drops the unlabelled zeros once an object exists, and brings them back when the last one goes', async () => {
    const { objects, registry } = fixture();
    objects.set('podtransitionrules', [{ metadata: { name: 'gate', namespace: 'ns', uid: 'u' }, status: { details: [{ name: 'p', passed: true }] } }]);
    objects.set('clonesets', [{ metadata: { name: 'web', namespace: 'ns', uid: 'c' }, spec: { replicas: 2 } }]);
    let text = await registry.metrics();
    expect(text).toContain('cloneset_suite_transition_rule_pods{namespace="ns",podtransitionrule="gate",decision="passed"} 1');
    expect(text).not.toContain('cloneset_suite_transition_rule_pods{decision=');
    expect(text).not.toContain('cloneset_suite_transition_rule_decisions_total{decision=');
    expect(text).not.toMatch(/^cloneset_suite_cloneset_pods_created_total 0$/m);
    objects.clear();
    text = await registry.metrics();
    expect(text).toContain('cloneset_suite_transition_rule_pods{decision="passed"} 0');
    expect(text).toMatch(/^cloneset_suite_cloneset_pods_deleted_total 0$/m);
  });
});

describe('cloneSetSeriesOf: the CloneSet series a pod event counts in', () => {
  const owned = (ref: Partial<{ apiVersion: string; kind: string; name: string; uid: string; controller: boolean }>): KubeObject => ({
    metadata: { name: 'web-x', namespace: 'ns', ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid: 'uid-web', controller: true, ...ref }] },
  });
  const cached = new Map([['ns/web', 'uid-web']]);
  const cachedUid = (namespace: string, name: string) => cached.get(`${namespace}/${name}`);
  it.each<[string, KubeObject, ReturnType<typeof cloneSetSeriesOf>]>([
    ['its controlling CloneSet, in the cache with that uid', owned({}), { namespace: 'ns', cloneset: 'web' }],
    ['a CloneSet not in the cache (deleted, or never created)', owned({ name: 'made-up', uid: 'uid-made-up' }), undefined],
    ['a CloneSet of that name but another uid (deleted and created again)', owned({ uid: 'uid-old-web' }), undefined],
    ['a reference that is not the controller', owned({ controller: false }), undefined],
    ['another kind', owned({ kind: 'ReplicaSet', apiVersion: 'apps/v1' }), undefined],
    ['no owner', { metadata: { name: 'p', namespace: 'ns' } }, undefined],
  ])('%s', (_name, pod, expected) => {
    expect(cloneSetSeriesOf(pod, cachedUid)).toEqual(expected);
  });
});

describe('pods created and deleted per CloneSet', () => {
  type Cached = { metadata: { name: string; namespace: string; uid: string } };
  const fixture = (ring?: { ring: string; shard: string }) => {
    const cloneSets = new Map<string, Cached>();
    const handlers = new Map<string, ResourceEventHandler<KubeObject>[]>();
    const manager = {
      clock: { now: () => 0 },
      ring,
      informers: {
        informerFor: (resource: { resource: string }) => ({
          list: () => (resource.resource === 'clonesets' ? [...cloneSets.values()] : []),
          get: (ns: string, name: string) => (resource.resource === 'clonesets' ? cloneSets.get(`${ns}/${name}`) : undefined),
          addEventHandler: (h: ResourceEventHandler<KubeObject>) => {
            handlers.set(resource.resource, [...(handlers.get(resource.resource) ?? []), h]);
            return () => undefined;
          },
        }),
      },
    } as unknown as Manager;
    const registry = new Registry();
    registerProductMetrics({ manager, registry, namespace: undefined, cloneSets: true, lifecycle: false, transitionRules: false });
    const fire = (resource: string, event: 'add' | 'delete', obj: KubeObject) => {
      for (const h of handlers.get(resource) ?? []) {
        if (event === 'add') h.onAdd?.(obj, false);
        else h.onDelete?.(obj, false);
      }
    };
    return { cloneSets, registry, fire };
  };
  const web: Cached = { metadata: { name: 'web', namespace: 'ns', uid: 'uid-web' } };
  const podOf = (owner: string, uid: string, name = `${owner}-x`): KubeObject => ({
    metadata: { name, namespace: 'ns', ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: owner, uid, controller: true }] },
  });
  const series = (text: string) => text.split('\n').filter((l) => l.startsWith('cloneset_suite_cloneset_pods_'));

  it("counts a cached CloneSet's pods; a pod deleted after its CloneSet brings no series back", async () => {
    const { cloneSets, registry, fire } = fixture();
    cloneSets.set('ns/web', web);
    fire('clonesets', 'add', web);
    fire('pods', 'add', podOf('web', 'uid-web'));
    fire('pods', 'delete', podOf('web', 'uid-web'));
    expect(series(await registry.metrics())).toEqual([
      'cloneset_suite_cloneset_pods_created_total{namespace="ns",cloneset="web"} 1',
      'cloneset_suite_cloneset_pods_deleted_total{namespace="ns",cloneset="web"} 1',
    ]);
    // The CloneSet goes first; garbage collection deletes its pods afterwards.
    cloneSets.delete('ns/web');
    fire('clonesets', 'delete', web);
    fire('pods', 'delete', podOf('web', 'uid-web', 'web-y'));
    expect(series(await registry.metrics())).toEqual(['cloneset_suite_cloneset_pods_created_total 0', 'cloneset_suite_cloneset_pods_deleted_total 0']);
  });

  it('on a shard, counts as deleted only a pod that showed its deletion mark (one moved to another shard leaves unmarked)', async () => {
    const { cloneSets, registry, fire } = fixture({ ring: 'ring-a', shard: 'shard-0' });
    cloneSets.set('ns/web', web);
    fire('clonesets', 'add', web);
    fire('pods', 'delete', podOf('web', 'uid-web', 'web-moved'));
    const marked = podOf('web', 'uid-web', 'web-deleted');
    fire('pods', 'delete', { ...marked, metadata: { ...marked.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
    expect(series(await registry.metrics())).toContain('cloneset_suite_cloneset_pods_deleted_total{namespace="ns",cloneset="web"} 1');
  });

  it('mints no series for a CloneSet that does not exist, nor for an older one of the same name', async () => {
    const { cloneSets, registry, fire } = fixture();
    cloneSets.set('ns/web', web);
    fire('clonesets', 'add', web);
    for (let i = 0; i < 50; i++) fire('pods', 'add', podOf(`made-up-${i}`, `uid-${i}`));
    fire('pods', 'delete', podOf('web', 'uid-old-web'));
    expect(series(await registry.metrics())).toEqual([
      'cloneset_suite_cloneset_pods_created_total{namespace="ns",cloneset="web"} 0',
      'cloneset_suite_cloneset_pods_deleted_total{namespace="ns",cloneset="web"} 0',
    ]);
  });
});
