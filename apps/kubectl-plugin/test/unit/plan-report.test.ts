import { FEATURE_GATE_DEFAULTS } from '@cloneset-suite/cloneset-controller';
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { planReport, type PlanReport } from '../../src/core/plan-report.ts';
import { NOW, UID, cloneSet, inputOf, pod, revisionOf, rollout, type PodOptions } from './plan-fixtures.ts';

const gates = { ...FEATURE_GATE_DEFAULTS };
const nanos = (msAgo: number): string => `${BigInt(NOW - msAgo) * 1_000_000n}`;
const cloneSetOperation = (phase: 'pre-check' | 'preparing' | 'operate'): Record<string, string> => ({
  'operating.podopslifecycle.kusionstack.io/cloneset': nanos(60_000),
  'operation-type.podopslifecycle.kusionstack.io/cloneset': 'update',
  'pre-check.podopslifecycle.kusionstack.io/cloneset': nanos(50_000),
  ...(phase !== 'pre-check' ? { 'pre-checked.podopslifecycle.kusionstack.io/cloneset': nanos(40_000), 'preparing.podopslifecycle.kusionstack.io/cloneset': nanos(30_000) } : {}),
  ...(phase === 'operate' ? { 'operate.podopslifecycle.kusionstack.io/cloneset': nanos(20_000) } : {}),
});
const rejectedBy = (rule: string, reason: string): Record<string, string> => ({
  'detail.podtransitionrule.kusionstack.io/change-window': JSON.stringify({ stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: rule, reason }] }),
});

/** A settled CloneSet of `count` pods at its only revision. */
function settled(o: Parameters<typeof cloneSet>[0] & { count?: number; pod?: (i: number) => Parameters<typeof pod>[1] } = {}) {
  const cs = cloneSet(o);
  const revision = revisionOf(cs);
  const name = revision.metadata!.name!;
  const count = o.count ?? cs.spec.replicas ?? 0;
  cs.status = { ...cs.status, currentRevision: name, updateRevision: name, replicas: count, updatedReplicas: count, readyReplicas: count, availableReplicas: count };
  const pods = Array.from({ length: count }, (_, i) => pod(`web-p${i}`, { revision: name, ...o.pod?.(i) }));
  return { cs, pods, revision, name, input: inputOf(cs, pods, [revision]) };
}

const waitKinds = (r: PlanReport): string[] => r.waits.map((w) => w.kind);

describe('planReport: the next pass, and why it waits', () => {
  it('says a CloneSet whose pods are all at the update revision and available is settled', () => {
    const s = settled();
    const report = planReport(s.input, { gates });
    expect(report).toMatchObject({ settled: true, actions: [], waits: [], notes: [] });
    expect(report.cloneSet).toMatchObject({ name: 'web', namespace: 'prod', replicas: 4, pods: 4, currentRevision: s.name, updateRevision: s.name, podsByRevision: { [s.name]: 4 } });
    expect(report.planner).toMatchObject({ replicas: 4, pods: 4, sync: 'update' });
  });

  it('reads revision labels that carry only the hash (CloneSetShortHash)', () => {
    const s = settled();
    for (const p of s.pods) p.metadata!.labels!['controller-revision-hash'] = s.name.slice(s.name.lastIndexOf('-') + 1);
    expect(planReport(s.input, { gates: { ...gates, CloneSetShortHash: true } })).toMatchObject({ settled: true, actions: [], waits: [] });
  });

  it('a paused, partitioned rollout: nothing now; on resume, the first pod in the update order, the budget and the partition holding the others', () => {
    const r = rollout({ updateStrategy: { type: 'InPlaceIfPossible', partition: 2, maxUnavailable: 1, paused: true } });
    const report = planReport(r.input(), { gates });
    expect(report.settled).toBe(false);
    expect(report.actions).toEqual([]);
    expect(report.waits).toMatchObject([
      { kind: 'paused', pods: ['web-p0', 'web-p1', 'web-p2', 'web-p3'], message: 'web-p0, web-p1, web-p2, web-p3: spec.updateStrategy.paused is true; no pod is updated until the rollout resumes' },
    ]);
    expect(report.onResume?.actions).toEqual([{ action: 'updateInPlace', pod: 'web-p3', revision: r.update, reason: 'images main=web:2' }]);
    expect(report.onResume?.waits).toMatchObject([
      { kind: 'maxUnavailable', pods: ['web-p2'], message: 'web-p2: waiting for the maxUnavailable budget (1 pod(s)); taken by this pass: web-p3' },
      { kind: 'partition', pods: ['web-p0', 'web-p1'], message: `partition 2 keeps web-p0, web-p1 at revision ${r.current}` },
    ]);
    expect(report.cloneSet.updateStrategy).toEqual({ type: 'InPlaceIfPossible', paused: true, partition: 2, maxUnavailable: 1, maxSurge: 0 });
  });

  it('a ReCreate rollout: one line per recreated pod, the rest wait for the budget', () => {
    const r = rollout({ updateStrategy: { type: 'ReCreate', maxUnavailable: 2 } });
    const report = planReport(r.input(), { gates });
    expect(report.actions).toEqual([
      { action: 'recreate', pod: 'web-p3', revision: r.update, reason: 'marked apps.kruise.io/specified-delete and deleted; its replacement is created at the update revision' },
      { action: 'recreate', pod: 'web-p2', revision: r.update, reason: 'marked apps.kruise.io/specified-delete and deleted; its replacement is created at the update revision' },
    ]);
    expect(report.waits).toMatchObject([{ kind: 'maxUnavailable', pods: ['web-p0', 'web-p1'], message: 'web-p0, web-p1: waiting for the maxUnavailable budget (2 pod(s)); taken by this pass: web-p2, web-p3' }]);
    expect(report.onResume).toBeUndefined();
  });

  it('names the pods that use up the budget, and why they are unavailable', () => {
    const r = rollout({ updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 }, minReadySeconds: 30, pod: (i) => (i === 0 ? { ready: false } : i === 1 ? { readyForSeconds: 10 } : {}) });
    const report = planReport(r.input(), { gates });
    // The default order takes a pod that is not ready first; it costs no budget, but it is the whole budget.
    expect(report.actions).toEqual([{ action: 'updateInPlace', pod: 'web-p0', revision: r.update, reason: 'images main=web:2' }]);
    expect(report.waits).toMatchObject([
      {
        kind: 'maxUnavailable',
        pods: ['web-p1', 'web-p2', 'web-p3'],
        message: 'web-p1, web-p2, web-p3: waiting for the maxUnavailable budget (1 pod(s)); unavailable now: web-p0 (not Ready), web-p1 (Ready for 10s of minReadySeconds 30); taken by this pass: web-p0',
      },
      { kind: 'minReadySeconds', pods: ['web-p1'], availableInSeconds: 21, message: 'web-p1: Ready for 10s of minReadySeconds 30; available in 21s' },
    ]);
  });

  it('pods the update order cannot tell apart go by name, as the controller takes them, whatever order they are read in', () => {
    const tied = rollout({ updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 }, pod: () => ({ createdSecondsAgo: 100 }) });
    const input = tied.input();
    const forwards = planReport(input, { gates });
    const backwards = planReport({ ...input, pods: [...input.pods].reverse() }, { gates });
    expect(forwards.actions).toEqual([{ action: 'updateInPlace', pod: 'web-p0', revision: tied.update, reason: 'images main=web:2' }]);
    expect(backwards.actions).toEqual(forwards.actions);
  });

  it('a controlled pod: the CloneSet begins its operation, and the budget holds the rest meanwhile', () => {
    const r = rollout({ controlled: true, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } });
    const report = planReport(r.input(), { gates });
    expect(report.actions).toEqual([
      { action: 'beginOperation', pod: 'web-p3', reason: 'PodOpsLifecycle operation cloneset/update: PodTransitionRules check it (PreCheck), then the update waits for operate' },
    ]);
    expect(report.waits).toMatchObject([{ kind: 'maxUnavailable', pods: ['web-p0', 'web-p1', 'web-p2'], message: 'web-p0, web-p1, web-p2: waiting for the maxUnavailable budget (1 pod(s)); taken by this pass: web-p3' }]);
  });

  it('a controlled pod held in PreCheck: the PodTransitionRule, its rule and its reason', () => {
    const r = rollout({
      controlled: true,
      updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 },
      pod: (i) => (i === 1 ? { labels: cloneSetOperation('pre-check'), annotations: rejectedBy('approved', 'label approved=yes is missing') } : {}),
    });
    const report = planReport(r.input(), { gates });
    expect(report.actions).toEqual([]);
    // The budget walk took web-p1 (its operation waits in PreCheck), so it is the pass's, and the rule holds it.
    expect(report.waits).toMatchObject([
      {
        kind: 'maxUnavailable',
        pods: ['web-p0', 'web-p2', 'web-p3'],
        message: 'web-p0, web-p2, web-p3: waiting for the maxUnavailable budget (1 pod(s)); unavailable now: web-p1 (in PodOpsLifecycle operation cloneset/update (PreCheck)); taken by this pass: web-p1',
      },
      {
        kind: 'podTransitionRule',
        pods: ['web-p1'],
        transitionRule: 'change-window',
        rule: 'approved',
        stage: 'PreCheck',
        reason: 'label approved=yes is missing',
        condition: 'PodsHeld',
        message: 'waiting for PodTransitionRule change-window rule approved to pass 1 pod(s): web-p1 held in PreCheck for update: label approved=yes is missing',
      },
    ]);
  });

  const lifecycleCases: [string, Partial<PodOptions>, string, string][] = [
    ['in PreCheck with no verdict yet', { labels: cloneSetOperation('pre-check') }, 'podOpsLifecycle', 'web-p1: in PreCheck of cloneset/update, waiting for the PodTransitionRules selecting it (none has rejected it yet)'],
    [
      'in Preparing, a protection finalizer still on it',
      { labels: cloneSetOperation('preparing'), finalizers: ['prot.podopslifecycle.kusionstack.io/endpointslice'] },
      'protectionFinalizer',
      'web-p1: in Preparing of cloneset/update, waiting for finalizer prot.podopslifecycle.kusionstack.io/endpointslice to be removed by the controller that put it there',
    ],
    ['in Preparing, no finalizer left', { labels: cloneSetOperation('preparing') }, 'podOpsLifecycle', 'web-p1: in Preparing of cloneset/update, waiting for the lifecycle controller to take it offline and grant operate'],
    [
      'operate granted, but protected',
      { labels: cloneSetOperation('operate'), finalizers: ['prot.podopslifecycle.kusionstack.io/lb'] },
      'protectionFinalizer',
      'web-p1: cloneset/update may operate, but finalizer prot.podopslifecycle.kusionstack.io/lb still protects it',
    ],
  ];
  it.each(lifecycleCases)('a controlled pod %s', (_, podOptions, kind, message) => {
    const r = rollout({ controlled: true, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 }, pod: (i) => (i === 1 ? podOptions : {}) });
    const report = planReport(r.input(), { gates });
    expect(report.actions).toEqual([]);
    expect(report.waits.find((w) => w.kind === kind)).toMatchObject({ kind, pods: ['web-p1'], message });
  });

  it('an OpenKruise lifecycle hook holding a pod in PreparingUpdate', () => {
    const hold = { 'example.com/hold': 'true' };
    const r = rollout({
      updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 },
      lifecycle: { inPlaceUpdate: { labelsHandler: hold } },
      pod: (i) => ({ labels: { ...hold, ...(i === 3 ? { 'lifecycle.apps.kruise.io/state': 'PreparingUpdate' } : {}) } }),
    });
    const report = planReport(r.input(), { gates });
    expect(report.actions).toEqual([]);
    expect(report.waits.find((w) => w.kind === 'lifecycleHook')).toMatchObject({
      pods: ['web-p3'],
      condition: 'PodsHeld',
      message: 'waiting for lifecycle hook inPlaceUpdate (label example.com/hold=true) to release 1 pod(s): web-p3 held in PreparingUpdate',
    });
    expect(waitKinds(report)).toEqual(['maxUnavailable', 'lifecycleHook']);
  });

  it('updateStrategy OnDelete: pods move only when deleted', () => {
    const r = rollout({ count: 2, replicas: 2, updateStrategy: { type: 'OnDelete' } });
    expect(planReport(r.input(), { gates }).waits).toMatchObject([
      { kind: 'onDelete', pods: ['web-p0', 'web-p1'], message: `web-p0, web-p1: updateStrategy OnDelete; each moves to revision ${r.update} only when it is deleted` },
    ]);
  });

  it('a scale-out names no pod: the controller draws new instance ids itself', () => {
    const s = settled({ replicas: 3, count: 1 });
    const report = planReport(s.input, { gates });
    expect(report.actions).toEqual([
      { action: 'create', revision: s.name, reason: '1 of 3 replicas; instance id drawn by the controller' },
      { action: 'create', revision: s.name, reason: '1 of 3 replicas; instance id drawn by the controller' },
    ]);
  });

  it('a scale-out that reuses the instance id of a free claim names the pod', () => {
    const s = settled({ replicas: 2, count: 1, withClaims: true });
    const claimOf = (id: string): V1PersistentVolumeClaim => ({
      metadata: { name: `data-web-${id}`, labels: { 'apps.kruise.io/cloneset-instance-id': id }, ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid: UID }] },
    });
    const report = planReport({ ...s.input, pvcs: [claimOf('p0'), claimOf('zzzzz')] }, { gates });
    expect(report.actions).toEqual([{ action: 'create', pod: 'web-zzzzz', revision: s.name, reason: '1 of 2 replicas; reuses instance id zzzzz and its claims' }]);
  });

  it('scale-in and a specified delete say why each pod goes', () => {
    const scaleIn = settled({ replicas: 2, count: 3 });
    expect(planReport(scaleIn.input, { gates }).actions).toEqual([{ action: 'delete', pod: 'web-p0', reason: 'scale in: 3 pods for 2 replicas' }]);
    const specified = settled({ podsToDelete: ['web-p1'] });
    expect(planReport(specified.input, { gates }).actions).toEqual([
      { action: 'delete', pod: 'web-p1', reason: 'listed in spec.scaleStrategy.podsToDelete' },
    ]);
  });

  it('passes on the waits the planner reports itself: a terminating pod holding the instance id its replacement needs', () => {
    const s = settled({ replicas: 1, count: 0, withClaims: true });
    const holder = pod('web-zzzzz', { revision: s.name, deleting: true });
    const claim: V1PersistentVolumeClaim = {
      metadata: { name: 'data-web-zzzzz', labels: { 'apps.kruise.io/cloneset-instance-id': 'zzzzz' }, ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid: UID }] },
    };
    const report = planReport({ ...s.input, pods: [holder], pvcs: [claim], podNamed: (n) => (n === 'web-zzzzz' ? holder : undefined) }, { gates });
    expect(report.waits).toMatchObject([
      {
        kind: 'terminatingPods',
        pods: ['web-zzzzz'],
        condition: 'FailedScale',
        message: 'waiting for terminating pod(s) web-zzzzz to be deleted before creating their replacements with the same instance ids and PVCs',
      },
    ]);
    expect(report.requeueAfterSeconds).toBe(1);
    expect(report.notes).toEqual(['terminating, no longer counted: web-zzzzz']);
  });

  it('a CloneSet being deleted plans no pods', () => {
    const s = settled({ count: 1, replicas: 1 });
    const deleting = { ...s.cs, metadata: { ...s.cs.metadata, deletionTimestamp: new Date(NOW).toISOString() } };
    expect(planReport({ ...s.input, cs: deleting }, { gates }).waits).toMatchObject([{ kind: 'deleting', message: 'the CloneSet is being deleted: pods are neither created nor updated' }]);
  });

  it('notes what only the status shows: a spec the controller has not processed, a failed pass; and what the plan did without', () => {
    const s = settled();
    const cs = {
      ...s.cs,
      metadata: { ...s.cs.metadata, generation: 3 },
      status: { ...s.cs.status, observedGeneration: 2, conditions: [{ type: 'FailedScale', status: 'True', message: 'pods "web-x" is forbidden: exceeded quota' }, { type: 'FailedUpdate', status: 'False', reason: 'Succeeded' }] },
    };
    const report = planReport({ ...s.input, cs }, { gates: { ...gates, CloneSetShortHash: true }, nodesUnreadable: 'forbidden' });
    expect(report.notes).toEqual([
      'status.observedGeneration 2 is behind generation 3: the controller has not finished a pass on the latest spec: it is not running, or it waits for its cache to show its own creates and deletes (which a plan cannot see)',
      'status: FailedScale True: pods "web-x" is forbidden: exceeded quota',
      'nodes not read (forbidden): a scale-in is planned without topology spread',
      'planned with feature gates CloneSetShortHash=true',
    ]);
    expect(report.featureGates.CloneSetShortHash).toBe(true);
  });
});
