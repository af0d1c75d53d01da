// What one admission request may ask of the manager: bounded work and bounded bodies.
import { defaultCloneSet, MAX_CLONESET_REPLICAS, MAX_PODS_TO_DELETE, type CloneSet, type PodLookup } from '@cloneset-suite/api-types';
import { silentLogger } from '@cloneset-suite/kube-runtime';
import { describe, expect, it } from 'vitest';
import { FEATURE_GATE_DEFAULTS, type FeatureGates } from '../../src/config/feature-gates.ts';
import { webhookConfigurations } from '../../src/webhooks/configurations.ts';
import { cloneSetScaleValidator, cloneSetValidator } from '../../src/webhooks/cloneset.ts';
import { admissionWebhooks } from '../../src/webhooks/index.ts';
import type { PodCache, WebhookDeps } from '../../src/webhooks/types.ts';
import { cloneSetRequest, sampleCloneSet, scaleRequest } from '../support/reviews.ts';

/** A pod cache over a table; records every lookup. */
function podCache(pods: Record<string, PodLookup>, lookups: string[] = [], synced = true): PodCache {
  return {
    hasSynced: () => synced,
    get: (namespace, name) => {
      lookups.push(`${namespace}/${name}`);
      return pods[name];
    },
  };
}

function deps(overrides: Partial<WebhookDeps> = {}): WebhookDeps {
  return { pods: podCache({}), featureGates: { ...FEATURE_GATE_DEFAULTS }, transitionRuleWebhookAllowedPrefixes: [], ...overrides };
}

const ctx = { signal: new AbortController().signal, logger: silentLogger() };
const cloneSet = (): CloneSet => defaultCloneSet(sampleCloneSet() as unknown as CloneSet);

describe('clonesets/scale validation (kubectl scale skips the CloneSet webhooks)', () => {
  it('is registered for UPDATE of the scale subresource', () => {
    const hook = admissionWebhooks(deps()).find((h) => h.rules.some((r) => r.resources.includes('clonesets/scale')));
    expect(hook).toMatchObject({ type: 'validating', failurePolicy: 'Fail' });
    expect(hook?.rules).toEqual([{ operations: ['UPDATE'], apiGroups: ['apps.kruise.io'], apiVersions: ['v1alpha1'], resources: ['clonesets/scale'], scope: 'Namespaced' }]);
  });

  it('allows a scale within the bound and refuses one above it with a field cause', async () => {
    const hook = cloneSetScaleValidator(deps());
    expect(await hook.handle(scaleRequest(5, 3), ctx)).toEqual({ allowed: true });
    const res = await hook.handle(scaleRequest(MAX_CLONESET_REPLICAS + 1, 3), ctx);
    expect(res.status).toMatchObject({ code: 422, reason: 'Invalid', details: { kind: 'CloneSet', group: 'apps.kruise.io', name: 'sample' } });
    expect(res.status?.details?.causes).toEqual([expect.objectContaining({ field: 'spec.replicas', reason: 'FieldValueInvalid' })]);
    expect(res.status?.message).toMatch(/spec\.replicas: Invalid value: 100001: must be less than or equal to 100000/);
  });

  it('refuses spec.replicas above the bound on the main resource too', async () => {
    const cs = cloneSet();
    cs.spec.replicas = 2 ** 31 - 1;
    const res = await cloneSetValidator(deps()).handle(cloneSetRequest('CREATE', cs), ctx);
    expect(res.status?.details?.causes?.map((c) => c.field)).toEqual(['spec.replicas']);
  });
});

describe('podsToDelete: bounded and answered from the cache', () => {
  it('refuses a list above the bound without a single lookup', async () => {
    const cs = cloneSet();
    cs.spec.scaleStrategy = { podsToDelete: Array.from({ length: MAX_PODS_TO_DELETE + 1 }, (_, i) => `p-${i}`) };
    const lookups: string[] = [];
    const res = await cloneSetValidator(deps({ pods: podCache({}, lookups) })).handle(cloneSetRequest('CREATE', cs), ctx);
    expect(res.status?.code).toBe(422);
    expect(res.status?.details?.causes?.map((c) => c.field)).toEqual(['spec.scaleStrategy.podsToDelete']);
    expect(lookups).toEqual([]);
  });

  it('looks up only new names, only in the CloneSet namespace, in the cache', async () => {
    const old = cloneSet();
    old.spec.scaleStrategy = { podsToDelete: ['kept'] };
    const next = structuredClone(old);
    next.spec.scaleStrategy = { podsToDelete: ['kept', 'mine', 'foreign', 'missing'] };
    const lookups: string[] = [];
    const pods = podCache({ mine: { ownerReferences: [{ uid: 'cs-uid', controller: true }] }, foreign: { ownerReferences: [{ uid: 'other', controller: true }] } }, lookups);
    const res = await cloneSetValidator(deps({ pods })).handle(cloneSetRequest('UPDATE', next, old), ctx);
    expect(lookups.sort()).toEqual(['default/foreign', 'default/mine', 'default/missing']);
    const messages = res.status?.details?.causes?.map((c) => c.message).join('\n') ?? '';
    expect(messages).toMatch(/foreign/);
    expect(messages).toMatch(/missing/);
    expect(messages).not.toMatch(/pod mine/);
  });

  it('answers 503 while the pod cache has not synced, rather than calling the API', async () => {
    const cs = cloneSet();
    cs.spec.scaleStrategy = { podsToDelete: ['a'] };
    const res = await cloneSetValidator(deps({ pods: podCache({}, [], false) })).handle(cloneSetRequest('CREATE', cs), ctx);
    expect(res).toMatchObject({ allowed: false, status: { code: 503 } });
  });
});

describe('CloneSet DELETE is validated only when ResourcesDeletionProtection is on', () => {
  const operations = (gates: Partial<FeatureGates>): string[] =>
    cloneSetValidator(deps({ featureGates: { ...FEATURE_GATE_DEFAULTS, ...gates } })).rules.flatMap((r) => r.operations);

  it('registers DELETE under the gate only', () => {
    expect(FEATURE_GATE_DEFAULTS.ResourcesDeletionProtection).toBe(false);
    expect(operations({})).toEqual(['CREATE', 'UPDATE']);
    expect(operations({ ResourcesDeletionProtection: true })).toEqual(['CREATE', 'UPDATE', 'DELETE']);
  });

  it('the default webhook configuration sends no CloneSet DELETE to the manager', () => {
    const [, validating] = webhookConfigurations(admissionWebhooks(deps()), { name: 'x', target: { urlBase: 'https://127.0.0.1:9443' } });
    const ops = validating!.webhooks.flatMap((w) => (w.rules as { operations: string[]; resources: string[] }[]).filter((r) => r.resources.includes('clonesets')).flatMap((r) => r.operations));
    expect(ops).not.toContain('DELETE');
  });
});
