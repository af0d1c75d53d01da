// The PodOpsLifecycle pod webhooks as the apiserver calls them: controlled pods only, dry runs
// untouched, JSON patches that yield mutatePod's result, validating-webhook denials as 422 naming the label.
import { silentLogger } from '@cloneset-suite/kube-runtime';
import { describe, expect, it } from 'vitest';
import { FEATURE_GATE_DEFAULTS } from '../../src/config/feature-gates.ts';
import { admissionWebhooks } from '../../src/webhooks/index.ts';
import type { JsonPatchOperation } from '../../src/webhooks/json-patch.ts';
import { podOpsLifecycleMutator, podOpsLifecycleValidator } from '../../src/webhooks/pod.ts';
import type { WebhookDeps } from '../../src/webhooks/types.ts';
import { applyJsonPatch } from '../support/apply-patch.ts';
import { podRequest } from '../support/reviews.ts';

// The pod webhooks never look a pod up: a cache that throws proves it.
const noLookup = (): never => {
  throw new Error('no pod lookup expected');
};
const deps: WebhookDeps = {
  pods: { hasSynced: noLookup, get: noLookup },
  featureGates: { ...FEATURE_GATE_DEFAULTS },
  transitionRuleWebhookAllowedPrefixes: [],
};
const ctx = { signal: new AbortController().signal, logger: silentLogger() };

function samplePod(labels: Record<string, string> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', labels: { 'kusionstack.io/control': 'true', ...labels } },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };
}

const patchOf = (res: { patch?: string }): JsonPatchOperation[] => JSON.parse(Buffer.from(res.patch ?? 'W10=', 'base64').toString('utf8')) as JsonPatchOperation[];

describe('/mutate-pod', () => {
  const hook = podOpsLifecycleMutator(deps);

  it('is registered for pods and pods/status, CREATE/UPDATE, controlled pods only', () => {
    expect(admissionWebhooks(deps).map((h) => h.path)).toEqual(expect.arrayContaining(['/mutate-pod', '/validate-pod']));
    expect(hook.rules).toEqual([expect.objectContaining({ operations: ['CREATE', 'UPDATE'], resources: ['pods', 'pods/status'] })]);
    expect(hook.objectSelector).toEqual({ matchLabels: { 'kusionstack.io/control': 'true' } });
    expect(hook.failurePolicy).toBe('Fail');
  });

  it('adds the readiness gate on CREATE', async () => {
    const pod = samplePod();
    const res = await hook.handle(podRequest('CREATE', pod), ctx);
    expect(res.allowed).toBe(true);
    expect((applyJsonPatch(pod, patchOf(res)) as { spec: { readinessGates: unknown } }).spec.readinessGates).toEqual([{ conditionType: 'pod.kusionstack.io/service-ready' }]);
  });

  it('moves a begun operation into PreCheck', async () => {
    const old = samplePod();
    const pod = samplePod({ 'operating.podopslifecycle.kusionstack.io/a': '1', 'operation-type.podopslifecycle.kusionstack.io/a': 'update' });
    const res = await hook.handle(podRequest('UPDATE', pod, old), ctx);
    const labels = (applyJsonPatch(pod, patchOf(res)) as { metadata: { labels: Record<string, string> } }).metadata.labels;
    expect(labels['pre-check.podopslifecycle.kusionstack.io/a']).toMatch(/^[0-9]{19}$/);
  });

  it('refuses an undo naming a type the id does not run, with 422 naming the id and its type', async () => {
    const running = { 'operating.podopslifecycle.kusionstack.io/a': '1700000000000000000', 'operation-type.podopslifecycle.kusionstack.io/a': 'update' };
    const pod = samplePod({ ...running, 'undo-operation-type.podopslifecycle.kusionstack.io/a': 'scale-in' });
    const res = await hook.handle(podRequest('UPDATE', pod, samplePod(running)), ctx);
    expect(res.allowed).toBe(false);
    expect(res.status?.code).toBe(422);
    expect(res.status?.message).toContain('lifecycle a runs operation type update');
    expect(res.status?.details?.causes?.[0]?.field).toBe('metadata.labels[undo-operation-type.podopslifecycle.kusionstack.io/a]');
    const undo = samplePod({ ...running, 'undo-operation-type.podopslifecycle.kusionstack.io/a': 'update' });
    expect((await hook.handle(podRequest('UPDATE', undo, samplePod(running)), ctx)).allowed).toBe(true);
  });

  it('leaves dry runs, uncontrolled pods and settled pods untouched', async () => {
    expect(await hook.handle(podRequest('CREATE', samplePod(), undefined, { dryRun: true }), ctx)).toEqual({ allowed: true });
    const uncontrolled = samplePod();
    (uncontrolled.metadata as { labels: Record<string, string> }).labels = { app: 'x' };
    expect(await hook.handle(podRequest('CREATE', uncontrolled), ctx)).toEqual({ allowed: true });
    const settled = samplePod({ 'podopslifecycle.kusionstack.io/service-available': '1', 'podopslifecycle.cloneset-suite.io/phase': 'ServiceAvailable' });
    expect(await hook.handle(podRequest('UPDATE', settled, settled), ctx)).toEqual({ allowed: true });
  });
});

describe('/mutate-pod with the traffic cooperation', () => {
  const services = (namespace: string) =>
    namespace === 'default'
      ? [
          { name: 'web', selector: { app: 'web' }, ignored: false },
          { name: 'quiet', selector: { app: 'web' }, ignored: true },
          { name: 'other', selector: { app: 'other' }, ignored: false },
        ]
      : [];
  const hook = podOpsLifecycleMutator({ ...deps, trafficServices: services });
  const annotationAfter = async (op: 'CREATE' | 'UPDATE', pod: Record<string, unknown>, old?: Record<string, unknown>) =>
    (applyJsonPatch(pod, patchOf(await hook.handle(podRequest(op, pod, old), ctx))) as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.['pod.kusionstack.io/available-conditions'];

  it('creates a pod with an expected finalizer per participating Service selecting it', async () => {
    expect(JSON.parse((await annotationAfter('CREATE', samplePod({ app: 'web' })))!)).toEqual({
      expectedFinalizers: { 'Service/default/web': 'prot.podopslifecycle.kusionstack.io/endpointslice' },
    });
  });

  it('adds nothing for a pod no Service selects, and nothing on UPDATE (the controller keeps entries in sync)', async () => {
    expect(await annotationAfter('CREATE', samplePod({ app: 'lonely' }))).toBeUndefined();
    expect(await annotationAfter('UPDATE', samplePod({ app: 'web' }), samplePod({ app: 'web' }))).toBeUndefined();
  });

  it('adds nothing when the cooperation does not run', async () => {
    const pod = samplePod({ app: 'web' });
    const res = await podOpsLifecycleMutator(deps).handle(podRequest('CREATE', pod), ctx);
    expect((applyJsonPatch(pod, patchOf(res)) as { metadata: { annotations?: unknown } }).metadata.annotations).toBeUndefined();
  });
});

describe('/validate-pod', () => {
  const hook = podOpsLifecycleValidator(deps);

  it('refuses a lifecycle label violation with 422 and Kuperator\'s message naming the label', async () => {
    const pod = samplePod({ 'operating.podopslifecycle.kusionstack.io': '1' });
    const res = await hook.handle(podRequest('UPDATE', pod, samplePod()), ctx);
    expect(res.allowed).toBe(false);
    expect(res.status?.code).toBe(422);
    expect(res.status?.message).toBe(
      'failed to validate PodOpsLifecycleWebhook, invalid label operating.podopslifecycle.kusionstack.io: expected <prefix>/<id>',
    );
    expect(res.status?.details?.causes?.[0]?.field).toBe('metadata.labels[operating.podopslifecycle.kusionstack.io]');
  });

  it('allows operating without operation-type, as Kuperator does (operators may write them in two writes)', async () => {
    const pod = samplePod({ 'operating.podopslifecycle.kusionstack.io/a': '1700000000000000000', 'pre-check.podopslifecycle.kusionstack.io/a': '1700000000000000000' });
    expect(await hook.handle(podRequest('UPDATE', pod, samplePod()), ctx)).toEqual({ allowed: true });
  });

  it('allows valid pods, dry runs and uncontrolled pods', async () => {
    expect(await hook.handle(podRequest('CREATE', samplePod()), ctx)).toEqual({ allowed: true });
    const bad = samplePod({ 'operated.podopslifecycle.kusionstack.io/a': '1' });
    expect(await hook.handle(podRequest('UPDATE', bad, samplePod(), { dryRun: true }), ctx)).toEqual({ allowed: true });
    (bad.metadata as { labels: Record<string, string> }).labels = { 'operated.podopslifecycle.kusionstack.io/a': '1' };
    expect(await hook.handle(podRequest('UPDATE', bad, bad), ctx)).toEqual({ allowed: true });
  });
});
