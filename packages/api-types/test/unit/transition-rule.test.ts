import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { caBundleProblem, PTR_MAX_PARAMETER_VALUE_BYTES, PTR_MAX_WEBHOOK_PARAMETERS, defaultPodTransitionRule, validatePodTransitionRule, type FieldError, type PodTransitionRule, type TransitionRule } from '../../src/index.ts';
import { PTR_MAX_CA_BUNDLE_BYTES } from '../../src/transition-rule/schema.ts';
import { formatFieldError } from '../../src/field-errors.ts';
import { fixturePath, loadPodTransitionRule } from '../fixtures.ts';

const texts = (errs: FieldError[]): string => errs.map(formatFieldError).join('\n');
const caBundle = Buffer.from(readFileSync(fixturePath('test-ca.pem'))).toString('base64');

function withRule(rule: Partial<TransitionRule>): PodTransitionRule {
  return { metadata: { name: 'ptr' }, spec: { selector: { matchLabels: { app: 'foo' } }, rules: [{ name: 'r', ...rule }] } };
}
const webhook = (clientConfig: Record<string, unknown>): Partial<TransitionRule> => ({
  webhook: { clientConfig: { url: 'https://example.test/check', ...clientConfig } },
});

describe('seed 000 sample', () => {
  it('validates before and after defaulting', () => {
    expect(texts(validatePodTransitionRule(loadPodTransitionRule()))).toBe('');
    expect(texts(validatePodTransitionRule(defaultPodTransitionRule(loadPodTransitionRule())))).toBe('');
  });
});

describe('defaultPodTransitionRule', () => {
  it('sets poll interval 5 s and timeout 60 s when a poll block exists', () => {
    const out = defaultPodTransitionRule(withRule(webhook({ poll: { url: 'http://example.test/poll' } })));
    expect(out.spec.rules?.[0]?.webhook?.clientConfig.poll).toEqual({ url: 'http://example.test/poll', intervalSeconds: 5, timeoutSeconds: 60 });
  });

  it('keeps poll values that are set', () => {
    const out = defaultPodTransitionRule(withRule(webhook({ poll: { url: 'http://example.test/poll', intervalSeconds: 2, timeoutSeconds: 9 } })));
    expect(out.spec.rules?.[0]?.webhook?.clientConfig.poll).toMatchObject({ intervalSeconds: 2, timeoutSeconds: 9 });
  });

  it('adds no poll block when there is none', () => {
    expect(defaultPodTransitionRule(withRule(webhook({}))).spec.rules?.[0]?.webhook?.clientConfig.poll).toBeUndefined();
  });

  it('defaults failurePolicy to Fail, keeping a set value', () => {
    expect(defaultPodTransitionRule(withRule(webhook({}))).spec.rules?.[0]?.webhook?.failurePolicy).toBe('Fail');
    const ignore = withRule(webhook({}));
    ignore.spec.rules![0]!.webhook!.failurePolicy = 'Ignore';
    expect(defaultPodTransitionRule(ignore).spec.rules?.[0]?.webhook?.failurePolicy).toBe('Ignore');
  });

  it('leaves non-webhook rules and its input untouched', () => {
    const ptr = withRule({ labelCheck: { requires: { matchLabels: { a: 'b' } } } });
    const before = structuredClone(ptr);
    expect(defaultPodTransitionRule(ptr)).toEqual(before);
    expect(ptr).toEqual(before);
  });

  it('copes with a webhook rule missing its clientConfig', () => {
    expect(() => defaultPodTransitionRule(withRule({ webhook: {} as never }))).not.toThrow();
  });
});

type Case = [rule: string, ptr: PodTransitionRule, field?: string, message?: RegExp];

const accepted: Case[] = [
  ['selector present', withRule({ availablePolicy: { maxUnavailableValue: 1 } })],
  ['rule with a name', withRule({ labelCheck: { requires: {} } })],
  ['labelCheck with requires', withRule({ labelCheck: { requires: { matchLabels: { a: 'b' } } } })],
  ['availablePolicy with max only', withRule({ availablePolicy: { maxUnavailableValue: '50%' } })],
  ['availablePolicy with min only (0 allowed)', withRule({ availablePolicy: { minAvailableValue: 0 } })],
  ['webhook https URL', withRule(webhook({}))],
  ['webhook http URL with port and path', withRule(webhook({ url: 'http://10.0.0.1:8089/post-stop' }))],
  ['caBundle empty', withRule(webhook({ caBundle: '' }))],
  ['caBundle Cg==', withRule(webhook({ caBundle: 'Cg==' }))],
  ['caBundle with a certificate', withRule(webhook({ caBundle }))],
  ['poll with URL and positive timings', withRule(webhook({ poll: { url: 'https://example.test/poll', intervalSeconds: 1, timeoutSeconds: 1 } }))],
  ['poll timeout of 24 h, the longest', withRule(webhook({ poll: { url: 'https://example.test/poll', timeoutSeconds: 86_400 } }))],
  ['filter with a valid selector', withRule({ filter: { labelSelector: { matchLabels: { a: 'b' } } }, availablePolicy: { maxUnavailableValue: 1 } })],
  ['any stage (never applies, not refused)', withRule({ stage: 'Other', availablePolicy: { maxUnavailableValue: 1 } })],
];

const rejected: Case[] = [
  ['selector nil', { spec: { rules: [] } as unknown as PodTransitionRule['spec'] }, 'spec.selector', /Required value/],
  ['selector invalid', { spec: { selector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] } } }, 'spec.selector.matchExpressions[0].values'],
  ['rule without a name', withRule({ name: '', availablePolicy: { maxUnavailableValue: 1 } }), 'spec.rules[0].name', /Required value/],
  ['labelCheck without requires', withRule({ labelCheck: {} as never }), 'spec.rules[0].labelCheck.requires', /Required value/],
  ['labelCheck with an invalid selector', withRule({ labelCheck: { requires: { matchLabels: { 'a b': 'c' } } } }), 'spec.rules[0].labelCheck.requires.matchLabels'],
  ['availablePolicy with neither value', withRule({ availablePolicy: {} }), 'spec.rules[0].availablePolicy', /one of maxUnavailableValue or minAvailableValue is required/],
  ['maxUnavailableValue 0', withRule({ availablePolicy: { maxUnavailableValue: 0 } }), 'spec.rules[0].availablePolicy.maxUnavailableValue', /can not be 0/],
  ['maxUnavailableValue "0%"', withRule({ availablePolicy: { maxUnavailableValue: '0%' } }), 'spec.rules[0].availablePolicy.maxUnavailableValue', /can not be 0/],
  ['maxUnavailableValue not int or percent', withRule({ availablePolicy: { maxUnavailableValue: 'half' } }), 'spec.rules[0].availablePolicy.maxUnavailableValue'],
  ['minAvailableValue negative', withRule({ availablePolicy: { minAvailableValue: -1 } }), 'spec.rules[0].availablePolicy.minAvailableValue'],
  ['webhook without clientConfig', withRule({ webhook: {} as never }), 'spec.rules[0].webhook.clientConfig', /Required value/],
  ['webhook URL not absolute', withRule(webhook({ url: '/post-stop' })), 'spec.rules[0].webhook.clientConfig.url'],
  ['webhook URL with another scheme', withRule(webhook({ url: 'ftp://example.test/x' })), 'spec.rules[0].webhook.clientConfig.url', /scheme/],
  ['caBundle not base64', withRule(webhook({ caBundle: 'not base64!' })), 'spec.rules[0].webhook.clientConfig.caBundle', /base64/],
  ['caBundle without a certificate', withRule(webhook({ caBundle: Buffer.from('hello').toString('base64') })), 'spec.rules[0].webhook.clientConfig.caBundle', /PEM/],
  ['poll URL invalid', withRule(webhook({ poll: { url: 'nope' } })), 'spec.rules[0].webhook.clientConfig.poll.url'],
  ['poll caBundle invalid', withRule(webhook({ poll: { url: 'https://example.test/p', caBundle: 'QUJD' } })), 'spec.rules[0].webhook.clientConfig.poll.caBundle'],
  ['poll interval 0', withRule(webhook({ poll: { url: 'https://example.test/p', intervalSeconds: 0 } })), 'spec.rules[0].webhook.clientConfig.poll.intervalSeconds'],
  ['poll timeout 0', withRule(webhook({ poll: { url: 'https://example.test/p', timeoutSeconds: 0 } })), 'spec.rules[0].webhook.clientConfig.poll.timeoutSeconds'],
  ['poll timeout over 24 h', withRule(webhook({ poll: { url: 'https://example.test/p', timeoutSeconds: 86_401 } })), 'spec.rules[0].webhook.clientConfig.poll.timeoutSeconds', /less than or equal to 86400/],
  ['webhook URL with user information', withRule(webhook({ url: 'https://hooks.example.com@169.254.169.254/' })), 'spec.rules[0].webhook.clientConfig.url', /user information is not permitted/],
  ['poll URL with user information', withRule(webhook({ poll: { url: 'https://user:pw@example.test/p' } })), 'spec.rules[0].webhook.clientConfig.poll.url', /user information is not permitted/],
  ['filter with an invalid selector', withRule({ filter: { labelSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } } }), 'spec.rules[0].filter.labelSelector.matchExpressions[0].values'],
  ['metadata name not a DNS subdomain', { ...withRule({ labelCheck: { requires: {} } }), metadata: { name: 'Bad!' } }, 'metadata.name'],
];

describe('validatePodTransitionRule', () => {
  it.each(accepted)('accepts: %s', (_rule, ptr) => {
    expect(texts(validatePodTransitionRule(ptr))).toBe('');
  });

  it.each(rejected)('rejects: %s', (_rule, ptr, field, message) => {
    const errs = validatePodTransitionRule(ptr);
    expect(errs.map((e) => e.field)).toContain(field);
    if (message) expect(texts(errs)).toMatch(message);
  });

  it('reports a missing spec', () => {
    expect(validatePodTransitionRule({} as PodTransitionRule)).toEqual([{ field: 'spec', type: 'Required', message: '' }]);
  });

  it('aggregates the errors of every rule', () => {
    const ptr = withRule({ name: '' });
    ptr.spec.rules!.push({ name: 'b', availablePolicy: {} });
    expect(validatePodTransitionRule(ptr).map((e) => e.field)).toEqual(['spec.rules[0].name', 'spec.rules[1].availablePolicy']);
  });
});

describe('caBundleProblem', () => {
  it('accepts a bundle of certificates and refuses a truncated one', () => {
    expect(caBundleProblem(caBundle)).toBeUndefined();
    const pem = readFileSync(fixturePath('test-ca.pem'), 'utf8');
    const broken = pem.replace(/\n[A-Za-z0-9+/]{20}/, '\n');
    expect(caBundleProblem(Buffer.from(broken).toString('base64'))).toMatch(/invalid certificate/);
  });

  it.each([
    ['text before the first block', (pem: string) => `junk${pem}`],
    ['text between two blocks', (pem: string) => `${pem}\nfresh-bytes-each-round\n${pem}`],
    ['text after the last block', (pem: string) => `${pem}-----BEGIN PRIVATE KEY-----`],
  ])('refuses %s: a caBundle is certificates only', (_name, edit) => {
    const pem = readFileSync(fixturePath('test-ca.pem'), 'utf8');
    expect(caBundleProblem(Buffer.from(edit(pem)).toString('base64'))).toMatch(/only PEM certificates/);
    expect(caBundleProblem(Buffer.from(`\n  ${pem}\n\n${pem}  \n`).toString('base64'))).toBeUndefined();
  });

  it(`refuses a bundle over ${PTR_MAX_CA_BUNDLE_BYTES} bytes decoded`, () => {
    const pem = readFileSync(fixturePath('test-ca.pem'), 'utf8');
    const many = pem.repeat(Math.ceil((PTR_MAX_CA_BUNDLE_BYTES + 1) / pem.length));
    expect(caBundleProblem(Buffer.from(many).toString('base64'))).toMatch(/at most 65536 bytes/);
  });
});

describe('webhook parameters are bounded', () => {
  const webhook = (parameters: { key: string; value?: string }[]) => withRule({ name: 'w', webhook: { clientConfig: { url: 'https://hook.example/x' }, parameters } });

  it(`refuses more than ${PTR_MAX_WEBHOOK_PARAMETERS} parameters, naming the field`, () => {
    const many = Array.from({ length: PTR_MAX_WEBHOOK_PARAMETERS + 1 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    expect(validatePodTransitionRule(webhook(many))).toEqual([expect.objectContaining({ field: 'spec.rules[0].webhook.parameters', message: `must have at most ${PTR_MAX_WEBHOOK_PARAMETERS} items` })]);
    expect(validatePodTransitionRule(webhook(many.slice(1)))).toEqual([]);
  });

  it(`refuses a value over ${PTR_MAX_PARAMETER_VALUE_BYTES} bytes, naming the parameter`, () => {
    const big = [{ key: 'a', value: 'x' }, { key: 'b', value: 'é'.repeat(PTR_MAX_PARAMETER_VALUE_BYTES / 2 + 1) }];
    expect(validatePodTransitionRule(webhook(big))).toEqual([expect.objectContaining({ field: 'spec.rules[0].webhook.parameters[1].value' })]);
    expect(validatePodTransitionRule(webhook([{ key: 'b', value: 'x'.repeat(PTR_MAX_PARAMETER_VALUE_BYTES) }]))).toEqual([]);
  });
});
