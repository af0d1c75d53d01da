// In-place resize of cpu and memory (gate InPlaceWorkloadVerticalScaling): which changes pods/resize
// makes, the actions of an update that resizes, completion from the pod's status, and the
// re-creation (or hold) of a pod whose node does not apply the resize.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Container, V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import { KUSION_CONTROL_LABEL, POL_LABELS } from '@cloneset-suite/api-types';
import { needsRecreate } from '../../src/core/update/step-diffs.ts';
import { inPlaceDiff } from '../../src/core/update/inplace.ts';
import { isInPlaceUpdateComplete } from '../../src/core/update/inplace-state.ts';
import type { OperationAction, PatchPodAction, PlanAction } from '../../src/core/plan.ts';
import { refreshPod } from '../../src/core/update/refresh.ts';
import { DEFAULT_RESIZE_DEFERRED_TIMEOUT_MS } from '../../src/core/update/resize-fallback.ts';
import { containerResize, qosClass } from '../../src/core/update/resize.ts';
import type { CloneSetLike, CloneSetSpecLike } from '../../src/core/types.ts';
import { planUpdate } from '../../src/core/update/update-plan.ts';
import { NOW, cloneSet, ctxFor, onConditions, pod, type PodOpts } from './fixtures.ts';
import { waitMessage } from '../../src/core/waits/wait-text.ts';

const GATE = { InPlaceWorkloadVerticalScaling: true };
type Res = V1Container['resources'];
const SMALL: Res = { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } };
const LARGE: Res = { requests: { cpu: '150m', memory: '96Mi' }, limits: { cpu: '300m', memory: '128Mi' } };

function container(resources: Res, extra: Partial<V1Container> = {}): V1Container {
  return { name: 'main', image: 'nginx:1', resources, ...extra };
}
function template(resources: Res, extra: Partial<V1Container> = {}): V1PodTemplateSpec {
  return { metadata: { labels: { app: 'demo' } }, spec: { containers: [container(resources, extra)] } };
}

/** A pod at cs-old running `resources`, its status reporting `reported` (default: the same). */
function podWith(resources: Res, o: PodOpts & { reported?: Res } = {}): V1Pod {
  const p = pod({ rev: 'cs-old', state: 'Normal', labels: { 'pod-template-hash': 'old' }, ...o });
  p.spec!.containers = [container(resources)];
  p.status!.containerStatuses![0]!.resources = o.reported ?? resources;
  return p;
}

const kinds = (a: PlanAction[]) => a.map((x) => x.kind);
const marked = (a: PlanAction[]) => a.filter((x): x is PatchPodAction => x.kind === 'patchPod' && x.reason === 'RecreateUpdate').map((x) => x.name);

interface PlanOpts {
  pods?: V1Pod[];
  gates?: Record<string, boolean>;
  strategy?: NonNullable<CloneSetSpecLike['updateStrategy']>;
  from?: V1PodTemplateSpec;
  allocatable?: Record<string, string>;
  status?: CloneSetLike['status'];
}

function plan(type: string, to: V1PodTemplateSpec, o: PlanOpts = {}) {
  const pods = o.pods ?? [podWith(SMALL)];
  const cs = cloneSet({ replicas: pods.length, template: to, updateStrategy: { type, maxUnavailable: 2, ...o.strategy } }, o.status ? { status: o.status } : {});
  const ctx = ctxFor(cs, pods, { gates: o.gates ?? GATE, oldTemplate: o.from ?? template(SMALL) });
  const allocatable = o.allocatable;
  return planUpdate(allocatable ? { ...ctx, nodeAllocatable: () => allocatable } : ctx);
}

describe('which resource changes pods/resize makes', () => {
  it.each<[string, V1Container, V1Container, ReturnType<typeof containerResize>]>([
    ['no change (1000m is 1)', container({ requests: { cpu: '1' } }), container({ requests: { cpu: '1000m' } }), 'none'],
    ['cpu and memory values', container(SMALL), container(LARGE), { requests: { cpu: '150m', memory: '96Mi' }, limits: { cpu: '300m', memory: '128Mi' } }],
    ['a cpu limit added', container({ requests: { cpu: '100m' } }), container({ requests: { cpu: '100m' }, limits: { cpu: '1' } }), { requests: { cpu: '100m' }, limits: { cpu: '1' } }],
    ['a memory limit removed (the apiserver refuses it)', container(SMALL), container({ requests: SMALL.requests, limits: { cpu: '200m' } }), undefined],
    ['another resource', container({ requests: { 'ephemeral-storage': '1Gi' } }), container({ requests: { 'ephemeral-storage': '2Gi' } }), undefined],
    ['memory with resizePolicy RestartContainer', container(SMALL), container(LARGE, { resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] }), undefined],
    ['cpu only, RestartContainer for memory', container(SMALL), container({ ...SMALL, requests: { cpu: '150m', memory: '64Mi' } }, { resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] }), { requests: { cpu: '150m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } }],
  ])('%s', (_name, from, to, expected) => {
    expect(containerResize(from, to)).toEqual(expected);
  });

  it('computes the QoS class as Kubernetes does (a limit alone counts as the request)', () => {
    expect(qosClass({ containers: [container(undefined)] })).toBe('BestEffort');
    expect(qosClass({ containers: [container({ limits: { cpu: '1', memory: '1Gi' } })] })).toBe('Guaranteed');
    expect(qosClass({ containers: [container({ requests: { cpu: '1000m', memory: '1Gi' }, limits: { cpu: '1', memory: '1024Mi' } })] })).toBe('Guaranteed');
    expect(qosClass({ containers: [container(SMALL)] })).toBe('Burstable');
    expect(qosClass({ containers: [container({ limits: { cpu: '1', memory: '1Gi' } }), container(undefined, { name: 'side' })] })).toBe('Burstable');
  });

  it('inPlaceDiff: with the gate a resources change is in place unless the QoS class changes; without it, never', () => {
    expect(inPlaceDiff(template(SMALL), template(LARGE), { verticalScaling: true })?.resources).toEqual({ main: LARGE });
    expect(inPlaceDiff(template(SMALL), template(LARGE))).toBeUndefined();
    const guaranteed: Res = { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } };
    expect(inPlaceDiff(template(guaranteed), template({ ...guaranteed, requests: { cpu: '500m', memory: '1Gi' } }), { verticalScaling: true })).toBeUndefined();
    expect(inPlaceDiff(template(guaranteed), template({ requests: { cpu: '2', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } }), { verticalScaling: true })?.resources).toEqual({ main: { requests: { cpu: '2', memory: '1Gi' }, limits: { cpu: '2', memory: '1Gi' } } });
    // An image and a resize together; an env change with it is not in place.
    const both = inPlaceDiff(template(SMALL), template(LARGE, { image: 'nginx:2' }), { verticalScaling: true });
    expect(both).toMatchObject({ images: { main: 'nginx:2' }, resources: { main: LARGE } });
    expect(inPlaceDiff(template(SMALL), template(LARGE, { env: [{ name: 'A', value: 'b' }] }), { verticalScaling: true })).toBeUndefined();
  });

  it('property: a template changed only in cpu/memory values of the same QoS class is a resize carrying exactly the new values', () => {
    const milli = fc.integer({ min: 1, max: 4000 }).map((n) => `${n}m`);
    const mebi = fc.integer({ min: 1, max: 4096 }).map((n) => `${n}Mi`);
    fc.assert(
      fc.property(milli, mebi, milli, mebi, (cpu, memory, cpu2, memory2) => {
        const from = template({ requests: { cpu, memory } });
        const to = template({ requests: { cpu: cpu2, memory: memory2 } });
        const diff = inPlaceDiff(from, to, { verticalScaling: true });
        expect(diff?.images).toEqual({});
        expect(diff?.resources).toEqual(cpu === cpu2 && memory === memory2 ? {} : { main: { requests: { cpu: cpu2, memory: memory2 } } });
      }),
    );
  });
});

describe('an update that resizes (InPlaceIfPossible, InPlaceOnly)', () => {
  it.each(['InPlaceIfPossible', 'InPlaceOnly'])('%s: the resize first, then one update write with updateResources; the pod keeps serving (no InPlaceUpdateReady False)', (type) => {
    const p = podWith(SMALL);
    p.spec!.readinessGates = [{ conditionType: 'InPlaceUpdateReady' }];
    p.status!.conditions!.push({ type: 'InPlaceUpdateReady', status: 'True' });
    const update = plan(type, template(LARGE), { pods: [p] });
    expect(kinds(update.actions)).toEqual(['resizePod', 'inPlaceUpdate']);
    expect(update.actions[0]).toEqual({ kind: 'resizePod', name: p.metadata!.name, containers: { main: LARGE } });
    const write = update.actions[1] as Extract<PlanAction, { kind: 'inPlaceUpdate' }>;
    expect(write.labels).toMatchObject({ 'controller-revision-hash': 'cs-new', 'lifecycle.apps.kruise.io/state': 'Updating' });
    expect(JSON.parse(write.annotations['apps.kruise.io/inplace-update-state']!)).toMatchObject({ revision: 'cs-new', updateResources: true });
    expect(write.images).toEqual({});
  });

  it('an image change with it restarts the container: InPlaceUpdateReady False first, then the resize and the images', () => {
    const p = podWith(SMALL);
    p.spec!.readinessGates = [{ conditionType: 'InPlaceUpdateReady' }];
    p.status!.conditions!.push({ type: 'InPlaceUpdateReady', status: 'True' });
    const update = plan('InPlaceIfPossible', template(LARGE, { image: 'nginx:2' }), { pods: [p] });
    expect(kinds(update.actions)).toEqual(['setPodConditions', 'resizePod', 'inPlaceUpdate']);
    expect((update.actions[2] as Extract<PlanAction, { kind: 'inPlaceUpdate' }>).images).toEqual({ main: 'nginx:2' });
  });

  it('resizes at most maxUnavailable pods at a time', () => {
    const update = plan('InPlaceIfPossible', template(LARGE), { pods: Array.from({ length: 10 }, () => podWith(SMALL)) });
    expect(update.actions.filter((a) => a.kind === 'resizePod')).toHaveLength(2);
  });

  it('gate off: today\'s behaviour exactly: a resources change is re-created (InPlaceIfPossible) or refused (InPlaceOnly), as before', () => {
    const off = plan('InPlaceIfPossible', template(LARGE), { gates: {}, pods: [podWith(SMALL), podWith(SMALL)] });
    const offExplicit = plan('InPlaceIfPossible', template(LARGE), { gates: { InPlaceWorkloadVerticalScaling: false }, pods: [podWith(SMALL), podWith(SMALL)] });
    expect(marked(off.actions)).toHaveLength(2);
    expect(kinds(offExplicit.actions)).toEqual(kinds(off.actions));
    expect(off.actions.some((a) => a.kind === 'resizePod' || a.kind === 'inPlaceUpdate')).toBe(false);
    const only = plan('InPlaceOnly', template(LARGE), { gates: {} });
    expect(only.errors.map((e) => e.message)).toEqual([expect.stringMatching(/update strategy is InPlaceOnly but can not update in-place$/)]);
  });

  it('a resizePolicy RestartContainer for a changed resource: re-created (InPlaceIfPossible), refused (InPlaceOnly)', () => {
    const restarts = template(LARGE, { resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }] });
    const from = template(SMALL, { resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }] });
    expect(marked(plan('InPlaceIfPossible', restarts, { from }).actions)).toHaveLength(1);
    expect(plan('InPlaceOnly', restarts, { from }).errors).toHaveLength(1);
  });

  it('a resize beyond the node\'s allocatable (the apiserver would refuse it): re-created with a Warning saying why, or refused under InPlaceOnly', () => {
    const big: Res = { requests: { cpu: '3', memory: '64Mi' }, limits: { cpu: '3', memory: '128Mi' } };
    const recreate = plan('InPlaceIfPossible', template(big), { allocatable: { cpu: '2', memory: '8Gi' } });
    expect(marked(recreate.actions)).toHaveLength(1);
    expect(recreate.actions.find((a) => a.kind === 'event')).toMatchObject({ type: 'Warning', reason: 'FailedUpdatePodInPlace', message: expect.stringContaining('not enough allocatable cpu (requests 3000m, allocatable 2)') });
    const refused = plan('InPlaceOnly', template(big), { allocatable: { cpu: '2', memory: '8Gi' } });
    expect(refused.errors[0]?.message).toMatch(/InPlaceOnly but can not update in-place: the resize does not fit, node node-a has not enough allocatable cpu/);
    expect(plan('InPlaceIfPossible', template(big), { allocatable: { cpu: '4', memory: '8Gi' } }).actions.some((a) => a.kind === 'resizePod')).toBe(true);
  });

  it('the surge of InPlaceIfPossible counts a pod whose resize cannot be made in place, not one that can', () => {
    const cs = (to: V1PodTemplateSpec) => cloneSet({ replicas: 1, template: to, updateStrategy: { type: 'InPlaceIfPossible', maxSurge: 1 } });
    const p = podWith(SMALL);
    expect(needsRecreate(ctxFor(cs(template(LARGE)), [p], { gates: GATE, oldTemplate: template(SMALL) }), p)).toBe(false);
    expect(needsRecreate(ctxFor(cs(template(LARGE)), [p], { gates: {}, oldTemplate: template(SMALL) }), p)).toBe(true);
  });

  it('controlled pods: an in-place update operation is begun first (the pod is not deleted)', () => {
    const control = { 'pod-template-hash': 'old', [KUSION_CONTROL_LABEL]: 'true', [POL_LABELS.serviceAvailable]: '1767225600000000000' };
    const update = plan('InPlaceIfPossible', template(LARGE), { pods: [podWith(SMALL, { labels: control })] });
    expect(update.actions.filter((a): a is OperationAction => a.kind === 'beginOperation')).toEqual([expect.objectContaining({ type: 'update', deletesPod: false })]);
  });
});

/** A pod in the state the update write leaves it: at cs-new, Updating, resized in its spec to LARGE. */
function resizing(reported: Res, conditions: NonNullable<V1Pod['status']>['conditions'] = [], generation = 2): V1Pod {
  const p = podWith(LARGE, { rev: 'cs-new', state: 'Updating', reported, labels: { 'pod-template-hash': 'new' } });
  p.metadata!.generation = generation;
  p.metadata!.annotations = { 'apps.kruise.io/inplace-update-state': JSON.stringify({ revision: 'cs-new', updateTimestamp: '2026-01-01T00:09:00Z', updateResources: true }) };
  p.status!.conditions!.push(...conditions);
  return p;
}
const pending = (reason: string, sinceMs: number, observedGeneration = 2) => ({ type: 'PodResizePending', status: 'True', reason, message: 'Node didn\'t have enough resource: cpu', observedGeneration, lastTransitionTime: new Date(sinceMs) });

describe('completion: the status reports the new resources', () => {
  it('stays Updating until every container reports its spec\'s cpu and memory, then moves on', () => {
    expect(isInPlaceUpdateComplete(resizing(SMALL))).toBe(false);
    expect(isInPlaceUpdateComplete(resizing({ requests: { cpu: '0.15', memory: '96Mi' }, limits: { cpu: '300m', memory: '128Mi' } }))).toBe(true);
    const ctx = ctxFor(cloneSet({ replicas: 1, template: template(LARGE), updateStrategy: { type: 'InPlaceIfPossible' } }), [], { gates: GATE, oldTemplate: template(SMALL) });
    expect(refreshPod(ctx, resizing(SMALL)).labelPatched).toBe(false);
    expect(refreshPod(ctx, resizing(LARGE)).actions).toContainEqual(expect.objectContaining({ kind: 'patchPod', lifecycle: { from: 'Updating', to: 'Normal' } }));
  });
});

describe('a resize the node does not apply', () => {
  const infeasible = () => resizing(SMALL, [pending('Infeasible', NOW)]);

  it('Infeasible under InPlaceIfPossible: re-created at its revision, said by a Warning and on FailedUpdate', () => {
    const p = infeasible();
    const update = plan('InPlaceIfPossible', template(LARGE), { pods: [p] });
    expect(marked(update.actions)).toEqual([p.metadata!.name]);
    expect(update.actions.find((a) => a.kind === 'event')).toMatchObject({ type: 'Warning', reason: 'FailedUpdatePodInPlace', message: expect.stringContaining('the node answered its resize Infeasible') });
    expect(onConditions(update.waits)).toEqual([{ condition: 'FailedUpdate', message: expect.stringMatching(/answered its resize Infeasible \(Node didn't have enough resource: cpu\); re-creating it at revision cs-new$/) }]);
  });

  it('Infeasible under InPlaceOnly: held and reported; the Warning only when the condition does not say it yet', () => {
    const p = infeasible();
    const update = plan('InPlaceOnly', template(LARGE), { pods: [p] });
    expect(marked(update.actions)).toEqual([]);
    expect(onConditions(update.waits)[0]?.message).toMatch(/held: InPlaceOnly never re-creates a pod/);
    expect(update.actions.filter((a) => a.kind === 'event')).toHaveLength(1);
    const again = plan('InPlaceOnly', template(LARGE), { pods: [p], status: { conditions: [{ type: 'FailedUpdate', status: 'True', message: onConditions(update.waits)[0]!.message }] } });
    expect(again.actions.filter((a) => a.kind === 'event')).toEqual([]);
    expect(onConditions(again.waits)).toEqual(onConditions(update.waits));
  });

  it('held while paused, and under OnDelete', () => {
    expect(marked(plan('InPlaceIfPossible', template(LARGE), { pods: [infeasible()], strategy: { paused: true } }).actions)).toEqual([]);
    expect(plan('InPlaceIfPossible', template(LARGE), { pods: [infeasible()], strategy: { paused: true } }).waits.map(waitMessage)[0]).toMatch(/held: the rollout is paused/);
    expect(marked(plan('OnDelete', template(LARGE), { pods: [infeasible()] }).actions)).toEqual([]);
  });

  it('Deferred: waits for the deadline (requeued then), and is re-created after it', () => {
    const fresh = plan('InPlaceIfPossible', template(LARGE), { pods: [resizing(SMALL, [pending('Deferred', NOW - 60_000)])] });
    expect(marked(fresh.actions)).toEqual([]);
    expect(onConditions(fresh.waits)).toEqual([]);
    expect(fresh.requeueAfterMs).toBe(DEFAULT_RESIZE_DEFERRED_TIMEOUT_MS - 60_000);
    const due = plan('InPlaceIfPossible', template(LARGE), { pods: [resizing(SMALL, [pending('Deferred', NOW - DEFAULT_RESIZE_DEFERRED_TIMEOUT_MS)])] });
    expect(marked(due.actions)).toHaveLength(1);
  });

  it('an answer about an earlier resize (an older generation), or a resize already applied, is no stall', () => {
    expect(marked(plan('InPlaceIfPossible', template(LARGE), { pods: [resizing(SMALL, [pending('Infeasible', NOW, 1)])] }).actions)).toEqual([]);
    expect(marked(plan('InPlaceIfPossible', template(LARGE), { pods: [resizing(LARGE, [pending('Infeasible', NOW)])] }).actions)).toEqual([]);
  });

  it('controlled pods: the in-place operation is undone, to begin again announcing the delete', () => {
    const p = infeasible();
    p.metadata!.labels = {
      ...p.metadata!.labels,
      [KUSION_CONTROL_LABEL]: 'true',
      'operating.podopslifecycle.kusionstack.io/cloneset': '1767225600000000000',
      'operation-type.podopslifecycle.kusionstack.io/cloneset': 'update',
      'operate.podopslifecycle.kusionstack.io/cloneset': '1767225600000000000',
    };
    const update = plan('InPlaceIfPossible', template(LARGE), { pods: [p] });
    expect(update.actions.filter((a) => a.kind === 'undoOperation')).toEqual([expect.objectContaining({ type: 'update' })]);
    expect(update.chosen?.has(p.metadata!.name!)).toBe(true);
  });
});
