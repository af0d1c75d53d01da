import { defaultCloneSet, type CloneSet } from '@cloneset-suite/api-types';
import { silentLogger } from '@cloneset-suite/kube-runtime';
import { describe, expect, it } from 'vitest';
import { FEATURE_GATE_DEFAULTS } from '../../src/config/feature-gates.ts';
import { parseAdmissionReview, BadAdmissionReview } from '../../src/webhooks/admission-review.ts';
import { cloneSetDefaulter, cloneSetValidator } from '../../src/webhooks/cloneset.ts';
import { admissionWebhooks } from '../../src/webhooks/index.ts';
import { NO_POD_CACHE } from '../../src/webhooks/pod-cache.ts';
import { podTransitionRuleDefaulter, podTransitionRuleValidator } from '../../src/webhooks/podtransitionrule.ts';
import type { WebhookDeps } from '../../src/webhooks/types.ts';
import { applyJsonPatch } from '../support/apply-patch.ts';
import { cloneSetRequest, ptrRequest, sampleCloneSet } from '../support/reviews.ts';

function deps(overrides: Partial<WebhookDeps> = {}): WebhookDeps {
  return { pods: NO_POD_CACHE, featureGates: { ...FEATURE_GATE_DEFAULTS }, transitionRuleWebhookAllowedPrefixes: [], ...overrides };
}

const ctx = { signal: new AbortController().signal, logger: silentLogger() };

describe('CloneSet defaulting webhook', () => {
  it('answers a JSON patch that yields the api-types defaults', async () => {
    const cs = sampleCloneSet();
    const res = await cloneSetDefaulter(deps()).handle(cloneSetRequest('CREATE', cs), ctx);
    expect(res.allowed).toBe(true);
    expect(res.patchType).toBe('JSONPatch');
    const patch = JSON.parse(Buffer.from(res.patch!, 'base64').toString('utf8'));
    expect(applyJsonPatch(cs, patch)).toEqual(defaultCloneSet(cs as unknown as CloneSet));
  });

  it('sends no patch for an already defaulted object', async () => {
    const cs = defaultCloneSet(sampleCloneSet() as unknown as CloneSet);
    const res = await cloneSetDefaulter(deps()).handle(cloneSetRequest('UPDATE', cs, cs), ctx);
    expect(res).toEqual({ allowed: true });
  });

  it('skips template defaults under TemplateNoDefaults', async () => {
    const cs = sampleCloneSet();
    const res = await cloneSetDefaulter(deps({ featureGates: { ...FEATURE_GATE_DEFAULTS, TemplateNoDefaults: true } })).handle(cloneSetRequest('CREATE', cs), ctx);
    const patched = applyJsonPatch(cs, JSON.parse(Buffer.from(res.patch!, 'base64').toString('utf8'))) as CloneSet;
    expect(patched.spec.template.spec?.containers[0]?.imagePullPolicy).toBeUndefined();
    expect(patched.spec.updateStrategy?.type).toBe('ReCreate');
  });
});

describe('CloneSet validating webhook', () => {
  it('allows a valid CloneSet', async () => {
    const cs = defaultCloneSet(sampleCloneSet() as unknown as CloneSet);
    expect(await cloneSetValidator(deps()).handle(cloneSetRequest('CREATE', cs), ctx)).toEqual({ allowed: true });
  });

  it('refuses an invalid one with 422 Invalid and a cause per field', async () => {
    const cs = defaultCloneSet(sampleCloneSet() as unknown as CloneSet);
    cs.spec.template.metadata = { labels: { app: 'other' } };
    cs.spec.updateStrategy = { ...cs.spec.updateStrategy, type: 'InPlaceOnly', maxSurge: 1 };
    const res = await cloneSetValidator(deps()).handle(cloneSetRequest('CREATE', cs), ctx);
    expect(res.allowed).toBe(false);
    expect(res.status?.code).toBe(422);
    expect(res.status?.reason).toBe('Invalid');
    expect(res.status?.message).toMatch(/^CloneSet.apps.kruise.io "sample" is invalid: \[/);
    expect(res.status?.details?.causes?.map((c) => c.field)).toEqual(['spec.template.metadata.labels', 'spec.updateStrategy.maxSurge']);
    expect(res.status?.details?.causes?.[0]).toMatchObject({ reason: 'FieldValueInvalid' });
    expect(res.status?.details?.causes?.[0]?.message).not.toContain('spec.template.metadata.labels:');
  });

  it('refuses an InPlaceOnly update that changes more than images', async () => {
    const old = defaultCloneSet(sampleCloneSet() as unknown as CloneSet);
    old.spec.updateStrategy = { ...old.spec.updateStrategy, type: 'InPlaceOnly', inPlaceUpdateStrategy: {} };
    const next = structuredClone(old);
    next.spec.template.spec!.containers[0]!.env = [{ name: 'A', value: '1' }];
    const res = await cloneSetValidator(deps()).handle(cloneSetRequest('UPDATE', next, old), ctx);
    expect(res.status?.code).toBe(422);
    expect(res.status?.message).toMatch(/only allowed to update images/);
    const imageOnly = structuredClone(old);
    imageOnly.spec.template.spec!.containers[0]!.image = 'nginx:1.28';
    expect((await cloneSetValidator(deps()).handle(cloneSetRequest('UPDATE', imageOnly, old), ctx)).allowed).toBe(true);
  });

  it('guards deletion only under ResourcesDeletionProtection, with 403', async () => {
    const cs = defaultCloneSet(sampleCloneSet() as unknown as CloneSet);
    cs.metadata = { ...cs.metadata, labels: { 'policy.kruise.io/delete-protection': 'Always' } };
    expect((await cloneSetValidator(deps()).handle(cloneSetRequest('DELETE', null, cs), ctx)).allowed).toBe(true);
    const gated = deps({ featureGates: { ...FEATURE_GATE_DEFAULTS, ResourcesDeletionProtection: true } });
    const res = await cloneSetValidator(gated).handle(cloneSetRequest('DELETE', null, cs), ctx);
    expect(res.status).toMatchObject({ code: 403, reason: 'Forbidden' });
  });
});

describe('PodTransitionRule webhooks', () => {
  const rule = (url: string): Record<string, unknown> => ({
    apiVersion: 'apps.kusionstack.io/v1alpha1',
    kind: 'PodTransitionRule',
    metadata: { name: 'rule', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'x' } },
      rules: [{ name: 'hook', stage: 'PreCheck', webhook: { clientConfig: { url, poll: { url: `${url}/poll` } } } }],
    },
  });

  it('defaults failurePolicy and poll settings by patch', async () => {
    const obj = rule('https://hooks.example/check');
    const res = await podTransitionRuleDefaulter(deps()).handle(ptrRequest('CREATE', obj), ctx);
    const patched = applyJsonPatch(obj, JSON.parse(Buffer.from(res.patch!, 'base64').toString('utf8'))) as { spec: { rules: { webhook: Record<string, unknown> }[] } };
    expect(patched.spec.rules[0]?.webhook.failurePolicy).toBe('Fail');
  });

  it('refuses invalid rules with 422 and URLs outside the allow-list with 403', async () => {
    const invalid = rule('https://hooks.example/check');
    (invalid.spec as { selector?: unknown }).selector = undefined;
    const bad = await podTransitionRuleValidator(deps()).handle(ptrRequest('CREATE', invalid), ctx);
    expect(bad.status?.code).toBe(422);
    const allow = deps({ transitionRuleWebhookAllowedPrefixes: ['https://hooks.example/'] });
    expect((await podTransitionRuleValidator(allow).handle(ptrRequest('CREATE', rule('https://hooks.example/check')), ctx)).allowed).toBe(true);
    const forbidden = await podTransitionRuleValidator(allow).handle(ptrRequest('CREATE', rule('http://10.0.0.1/steal')), ctx);
    expect(forbidden.status).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(forbidden.status?.details?.causes?.[0]?.field).toBe('spec.rules[0].webhook.clientConfig.url');
  });

  const withPoll = (url: string, pollUrl: string) => {
    const r = rule(url) as { spec: { rules: { webhook: { clientConfig: { poll: { url: string } } } }[] } };
    r.spec.rules[0]!.webhook.clientConfig.poll.url = pollUrl;
    return r as unknown as Record<string, unknown>;
  };
  const causes = async (d: WebhookDeps, obj: Record<string, unknown>) => {
    const res = await podTransitionRuleValidator(d).handle(ptrRequest('CREATE', obj), ctx);
    return { code: res.status?.code, fields: (res.status?.details?.causes ?? []).map((c) => c.field), message: res.status?.message ?? '' };
  };

  it('compares URLs with the allow-list on their parsed origin: user information naming an allowed host does not pass', async () => {
    const allow = deps({ transitionRuleWebhookAllowedPrefixes: ['https://hooks.example.com'] });
    // User information is refused outright (422), as the apiserver refuses it in webhook URLs.
    const tricked = await causes(allow, rule('https://hooks.example.com@169.254.169.254/'));
    expect(tricked).toMatchObject({ code: 422, fields: ['spec.rules[0].webhook.clientConfig.url', 'spec.rules[0].webhook.clientConfig.poll.url'] });
    expect(tricked.message).toMatch(/user information is not permitted in the URL/);
    expect(await causes(allow, rule('https://hooks.example.com.evil.net/check'))).toMatchObject({ code: 403 });
    expect(await causes(allow, rule('https://hooks.example.com:8443/check'))).toMatchObject({ code: 403 });
    expect((await podTransitionRuleValidator(allow).handle(ptrRequest('CREATE', rule('https://hooks.example.com:443/check')), ctx)).allowed).toBe(true);
  });

  it('checks poll.url as it checks url', async () => {
    const allow = deps({ transitionRuleWebhookAllowedPrefixes: ['https://hooks.example.com'] });
    expect(await causes(allow, withPoll('https://hooks.example.com/check', 'http://10.0.0.1/result'))).toMatchObject({ code: 403, fields: ['spec.rules[0].webhook.clientConfig.poll.url'] });
  });

  it.each([
    ['http://169.254.169.254/latest', 'link-local'],
    ['http://[fd00:ec2::254]/', 'link-local'],
    ['http://[fe80::1]/x', 'link-local'],
    ['http://2852039166/', 'link-local'],
    ['http://100.100.100.200/latest/meta-data', 'cloud-metadata'],
    ['http://168.63.129.16/', 'cloud-metadata'],
    ['http://100.64.3.4/', 'shared-address-space'],
    ['http://0.0.0.0:8080/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://127.0.0.1:8080/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'link-local'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
  ])('refuses %s (%s) named literally, unless the manager allows the class', async (url, cls) => {
    const refused = await causes(deps(), withPoll('https://hooks.example.com/check', url));
    expect(refused).toMatchObject({ code: 403, fields: ['spec.rules[0].webhook.clientConfig.poll.url'] });
    expect(refused.message).toMatch(new RegExp(`the controller never calls it: .* is a ${cls} address, refused unless --transition-rule-webhook-allow-addresses lists ${cls}`));
    expect((await podTransitionRuleValidator(deps({ transitionRuleWebhookAllowAddresses: [cls] })).handle(ptrRequest('CREATE', withPoll('https://hooks.example.com/check', url)), ctx)).allowed).toBe(true);
  });

  it('refuses a private address outside the narrowed private ranges', async () => {
    const narrowed = deps({ transitionRuleWebhookPrivateCidrs: ['10.96.0.0/12'] });
    const refused = await causes(narrowed, withPoll('https://hooks.example.com/check', 'http://192.168.1.5/result'));
    expect(refused).toMatchObject({ code: 403, fields: ['spec.rules[0].webhook.clientConfig.poll.url'] });
    expect(refused.message).toMatch(/192\.168\.1\.5 is a private address outside --transition-rule-webhook-private-cidrs/);
    expect((await podTransitionRuleValidator(narrowed).handle(ptrRequest('CREATE', withPoll('https://hooks.example.com/check', 'http://10.96.0.7/result')), ctx)).allowed).toBe(true);
  });

  it('refuses too many parameters and a caBundle with bytes outside its PEM blocks (422 naming the field)', async () => {
    const r = rule('https://hooks.example.com/check') as { spec: { rules: { webhook: Record<string, unknown> }[] } };
    r.spec.rules[0]!.webhook.parameters = Array.from({ length: 33 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    (r.spec.rules[0]!.webhook.clientConfig as Record<string, unknown>).caBundle = Buffer.from('junk').toString('base64');
    const refused = await causes(deps(), r);
    expect(refused).toMatchObject({ code: 422 });
    expect(refused.fields).toEqual(expect.arrayContaining(['spec.rules[0].webhook.parameters', 'spec.rules[0].webhook.clientConfig.caBundle']));
  });
});

describe('AdmissionReview envelope', () => {
  it('rejects what is not an AdmissionReview v1', () => {
    expect(() => parseAdmissionReview({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: {} })).toThrow(BadAdmissionReview);
    expect(() => parseAdmissionReview({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' })).toThrow(/request is missing/);
    expect(() => parseAdmissionReview('x')).toThrow(BadAdmissionReview);
  });

  it('registers each webhook path once, with names unique per type', () => {
    const hooks = admissionWebhooks(deps());
    expect(new Set(hooks.map((h) => h.path)).size).toBe(hooks.length);
    expect(hooks.map((h) => h.path)).toEqual([
      '/mutate-apps-kruise-io-v1alpha1-cloneset',
      '/validate-apps-kruise-io-v1alpha1-cloneset',
      '/validate-apps-kruise-io-v1alpha1-cloneset-scale',
      '/mutate-podtransitionrule',
      '/validate-podtransitionrule',
      '/mutate-pod',
      '/validate-pod',
    ]);
  });
});
