// The product's own metrics beside controller-runtime's: rollout progress per CloneSet, pods per
// PodOpsLifecycle phase and time spent per phase, PodTransitionRule decisions (current and
// recorded), pods created and deleted per CloneSet. Gauges are computed from the shared informer
// caches at scrape time (prom-client collect()), counters from informer events (a pod's only for
// a CloneSet in the cache), so planners and executors stay untouched. Labels are per CloneSet, per phase or per rule, never per pod. While no CloneSet
// (or no PodTransitionRule) exists, their series are exported at 0 without the object labels, so
// the dashboard's panels and the alerts read 0 from the manager's start rather than nothing.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { Resources, leftViewReason, type KubeObject, type Manager, type CachedSource } from '@cloneset-suite/kube-runtime';
import type { CloneSet, PodTransitionRuleStatus } from '@cloneset-suite/api-types';
import { REPLICA_STATES, cloneSetSeriesOf, progressDeadlineExceeded, replicasByState } from './cloneset-series.ts';
import { LIFECYCLE_PHASES, PhaseClock } from './phase-clock.ts';
import { RULE_DECISIONS, newDecisions, ruleDecisions } from './rule-decisions.ts';
import { zeroWhileEmpty } from './zero-while-empty.ts';

const cloneSetResource = { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets', kind: 'CloneSet', namespaced: true };
const ptrResource = { group: 'apps.kusionstack.io', version: 'v1alpha1', resource: 'podtransitionrules', kind: 'PodTransitionRule', namespaced: true };

type CloneSetObject = KubeObject & Pick<CloneSet, 'spec' | 'status'>;
type RuleObject = KubeObject & { status?: PodTransitionRuleStatus };

export interface ProductMetricsOptions {
  manager: Manager;
  registry: Registry;
  /** Namespace the controllers watch (the same informer scope, so the caches are shared); undefined for all. */
  namespace: string | undefined;
  /** Which caches exist (and may be read with the deployed RBAC). */
  cloneSets: boolean;
  lifecycle: boolean;
  transitionRules: boolean;
  nowMs?: () => number;
}

export function registerProductMetrics(o: ProductMetricsOptions): void {
  const registers = [o.registry];
  const now = o.nowMs ?? (() => o.manager.clock.now());
  const scope = o.namespace ? { namespace: o.namespace } : {};
  if (o.cloneSets) registerCloneSetMetrics(o.manager.informers.informerFor<CloneSetObject>(cloneSetResource, scope), o.manager.informers.informerFor<KubeObject>(Resources.pods, scope), registers, o.manager.ring !== undefined);
  if (o.lifecycle) registerLifecycleMetrics(o.manager.informers.informerFor<KubeObject>(Resources.pods, scope), registers, now);
  if (o.transitionRules) registerRuleMetrics(o.manager.informers.informerFor<RuleObject>(ptrResource, scope), registers);
}

function registerCloneSetMetrics(cloneSets: CachedSource<CloneSetObject>, pods: CachedSource<KubeObject>, registers: Registry[], sharded: boolean): void {
  const none = (): boolean => cloneSets.list().length === 0;
  const created = new Counter({
    name: 'cloneset_suite_cloneset_pods_created_total',
    help: 'Pods of the CloneSet that appeared after the manager started',
    labelNames: ['namespace', 'cloneset'],
    registers,
    collect() {
      zeroWhileEmpty(this, [{}], none());
    },
  });
  const deleted = new Counter({
    name: 'cloneset_suite_cloneset_pods_deleted_total',
    help: 'Pods of the CloneSet that were removed after the manager started',
    labelNames: ['namespace', 'cloneset'],
    registers,
    collect() {
      zeroWhileEmpty(this, [{}], none());
    },
  });
  // Counted only for CloneSets in the cache (cloneSetSeriesOf says why).
  const cachedUid = (namespace: string, name: string): string | undefined => cloneSets.get(namespace, name)?.metadata?.uid;
  pods.addEventHandler({
    onAdd: (p, initial) => {
      const series = initial ? undefined : cloneSetSeriesOf(p, cachedUid);
      if (series) created.inc(series);
    },
    onDelete: (p) => {
      const series = cloneSetSeriesOf(p, cachedUid);
      // On a shard a pod also leaves the cache when it moves to another shard (README, "Scaling
      // out: a ring of shards"): only a pod that showed its deletion mark was deleted.
      if (series && (!sharded || leftViewReason(p) === 'deleted')) deleted.inc(series);
    },
  });
  const keyOf = (cs: { metadata?: { namespace?: string; name?: string } }) => ({ namespace: cs.metadata?.namespace ?? '', cloneset: cs.metadata?.name ?? '' });
  cloneSets.addEventHandler({
    // A CloneSet's counters exist (at 0) as long as it does.
    onAdd: (cs) => {
      created.inc(keyOf(cs), 0);
      deleted.inc(keyOf(cs), 0);
    },
    onDelete: (cs) => {
      created.remove(keyOf(cs));
      deleted.remove(keyOf(cs));
    },
  });
  new Gauge({
    name: 'cloneset_suite_cloneset_replicas',
    help: 'Replicas of the CloneSet by state (desired: spec.replicas; current, updated, ready, available, updated_ready: status; unavailable: desired - available)',
    labelNames: ['namespace', 'cloneset', 'state'],
    registers,
    collect() {
      this.reset();
      for (const cs of cloneSets.list()) {
        const states = replicasByState(cs as CloneSetObject);
        for (const state of REPLICA_STATES) this.set({ ...keyOf(cs), state }, states[state]);
      }
      zeroWhileEmpty(this, REPLICA_STATES.map((state) => ({ state })), none());
    },
  });
  new Gauge({
    name: 'cloneset_suite_cloneset_progress_deadline_exceeded',
    help: '1 while the CloneSet Progressing condition is False with reason ProgressDeadlineExceeded',
    labelNames: ['namespace', 'cloneset'],
    registers,
    collect() {
      this.reset();
      for (const cs of cloneSets.list()) this.set(keyOf(cs), progressDeadlineExceeded(cs as CloneSetObject) ? 1 : 0);
      zeroWhileEmpty(this, [{}], none());
    },
  });
}

function registerLifecycleMetrics(pods: CachedSource<KubeObject>, registers: Registry[], now: () => number): void {
  const clock = new PhaseClock();
  const duration = new Histogram({
    name: 'cloneset_suite_podopslifecycle_phase_duration_seconds',
    help: 'Time pods spent in a PodOpsLifecycle phase before leaving it',
    labelNames: ['phase'],
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 3 * 3600, 12 * 3600],
    registers,
  });
  for (const phase of LIFECYCLE_PHASES) duration.zero({ phase });
  const observe = (pod: KubeObject): void => {
    const left = clock.observe(pod, now());
    if (left) duration.observe({ phase: left.phase }, left.seconds);
  };
  pods.addEventHandler({
    onAdd: (p) => observe(p as KubeObject),
    onUpdate: (_old, p) => observe(p as KubeObject),
    onDelete: (p) => clock.forget(p),
  });
  const collectPhases = (pick: (agg: { pods: number; oldestSeconds: number }) => number) =>
    function (this: Gauge<'phase'>): void {
      for (const [phase, agg] of clock.snapshot(now())) this.set({ phase }, pick(agg));
    };
  new Gauge({
    name: 'cloneset_suite_podopslifecycle_pods',
    help: 'Pods per PodOpsLifecycle phase (the podopslifecycle.cloneset-suite.io/phase label)',
    labelNames: ['phase'],
    registers,
    collect: collectPhases((a) => a.pods),
  });
  new Gauge({
    name: 'cloneset_suite_podopslifecycle_phase_oldest_seconds',
    help: 'How long the pod longest in each PodOpsLifecycle phase has been in it (0 when none is)',
    labelNames: ['phase'],
    registers,
    collect: collectPhases((a) => a.oldestSeconds),
  });
}

function registerRuleMetrics(rules: CachedSource<RuleObject>, registers: Registry[]): void {
  const none = (): boolean => rules.list().length === 0;
  const byDecision = RULE_DECISIONS.map((decision) => ({ decision }));
  const decisions = new Counter({
    name: 'cloneset_suite_transition_rule_decisions_total',
    help: 'Per-pod verdicts the PodTransitionRule recorded (a pod new in status.details or whose verdict flipped), by outcome',
    labelNames: ['namespace', 'podtransitionrule', 'decision'],
    registers,
    collect() {
      zeroWhileEmpty(this, byDecision, none());
    },
  });
  const ruleKey = (r: { metadata?: { namespace?: string; name?: string } }) => ({ namespace: r.metadata?.namespace ?? '', podtransitionrule: r.metadata?.name ?? '' });
  const count = (r: RuleObject, before: PodTransitionRuleStatus | undefined): void => {
    const made = newDecisions(before, r.status);
    for (const decision of RULE_DECISIONS) decisions.inc({ ...ruleKey(r), decision }, made[decision]);
  };
  rules.addEventHandler({
    // Verdicts already in the status at start were made before this process: only the series.
    onAdd: (r, initial) => count(r as RuleObject, initial ? (r.status as PodTransitionRuleStatus | undefined) : undefined),
    onUpdate: (old, r) => count(r as RuleObject, old.status as PodTransitionRuleStatus | undefined),
    onDelete: (r) => {
      for (const decision of RULE_DECISIONS) decisions.remove({ ...ruleKey(r), decision });
    },
  });
  new Gauge({
    name: 'cloneset_suite_transition_rule_pods',
    help: 'Pods in a stage of the PodTransitionRule by its current decision (status.details): passed or rejected',
    labelNames: ['namespace', 'podtransitionrule', 'decision'],
    registers,
    collect() {
      this.reset();
      for (const r of rules.list()) {
        const counts = ruleDecisions(r.status as PodTransitionRuleStatus | undefined);
        for (const decision of RULE_DECISIONS) {
          this.set({ namespace: r.metadata?.namespace ?? '', podtransitionrule: r.metadata?.name ?? '', decision }, counts[decision]);
        }
      }
      zeroWhileEmpty(this, byDecision, none());
    },
  });
}
