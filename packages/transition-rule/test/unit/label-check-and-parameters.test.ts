import { describe, expect, it } from 'vitest';
import { evaluateLabelCheck } from '../../src/core/label-check.ts';
import { buildParameters, fieldValue } from '../../src/core/parameters.ts';
import { parsePollResponse, parseWebhookResponse } from '../../src/core/protocol.ts';
import { pod } from './fixtures.ts';

describe('evaluateLabelCheck', () => {
  const requires = { matchLabels: { 'app.custom/ready': 'true' }, matchExpressions: [{ key: 'app.custom/forbidden', operator: 'DoesNotExist' as const }] };
  it.each([
    [{ 'app.custom/ready': 'true' }, true],
    [{ 'app.custom/ready': 'false' }, false],
    [{ 'app.custom/ready': 'true', 'app.custom/forbidden': 'x' }, false],
    [{}, false],
  ])('labels %j pass: %s', (labels, passes) => {
    const out = evaluateLabelCheck('labels', { requires }, [pod('p', { labels })]);
    expect(out.passed).toEqual(passes ? ['p'] : []);
    if (!passes) expect(out.rejected.get('p')).toBe('block by label check policy, pod ns/p labels not match !app.custom/forbidden,app.custom/ready=true');
  });

  it('an invalid selector rejects every pod and is a rule error', () => {
    const out = evaluateLabelCheck('labels', { requires: { matchExpressions: [{ key: 'k', operator: 'In' }] } }, [pod('p')]);
    expect(out.passed).toEqual([]);
    expect(out.error).toMatch(/^rule labels: invalid label check selector/);
  });
});

describe('webhook parameters', () => {
  const p = {
    metadata: { name: 'p', namespace: 'ns', uid: 'u1', labels: { b: '2', a: '1' }, annotations: { note: 'say "hi"' } },
    spec: { nodeName: 'n1', containers: [{ name: 'c' }] },
    status: { podIP: '10.0.0.1' },
  };
  it.each([
    ['metadata.name', 'p'],
    ['metadata.namespace', 'ns'],
    ['metadata.uid', 'u1'],
    ['metadata.labels', 'a="1"\nb="2"'],
    ['metadata.annotations', 'note="say \\"hi\\""'],
    ["metadata.labels['b']", '2'],
    ['metadata.annotations["note"]', 'say "hi"'],
    ["metadata.labels['missing']", ''],
    ['status.podIP', '10.0.0.1'],
    ['spec.containers', '[{"name":"c"}]'],
    ['spec.nothing.deeper', ''],
  ])('%s -> %j', (path, value) => expect(fieldValue(p, path)).toBe(value));

  it('a literal value wins over valueFrom', () => {
    expect(buildParameters(p, [{ key: 'k', value: 'lit', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }])).toEqual({ k: 'lit' });
  });
});

describe('protocol parsing', () => {
  it('reads the documented fields and refuses shapes that are not answers', () => {
    expect(parseWebhookResponse({ success: true, poll: true, taskId: 't', message: 'm' })).toEqual({ success: true, poll: true, async: false, taskId: 't', traceId: '', message: 'm', finishedNames: [] });
    expect(() => parseWebhookResponse([])).toThrow(/not a JSON object/);
    expect(() => parseWebhookResponse({ success: 'yes' })).toThrow(/success must be a boolean/);
    expect(() => parseWebhookResponse({ success: false, finishedNames: [1] })).toThrow(/finishedNames/);
    expect(parsePollResponse({ success: true, finished: false, finishedNames: ['a'], stop: true })).toEqual({ success: true, message: '', finished: false, finishedNames: ['a'], stop: true });
  });

  it('caps a message at 1 KiB without control characters, and refuses an id too long to store', () => {
    const answer = parseWebhookResponse({ success: false, message: `\u001b[2Jwiped${'x'.repeat(1024 * 1024)}` });
    expect(Buffer.byteLength(answer.message)).toBeLessThanOrEqual(1024);
    expect(answer.message).toMatch(/^ \[2Jwipedx+\.\.\. \[cut, 1048585 bytes\]$/);
    expect(Buffer.byteLength(parsePollResponse({ message: 'y'.repeat(5000) }).message)).toBeLessThanOrEqual(1024);
    expect(() => parseWebhookResponse({ success: true, poll: true, taskId: 't'.repeat(257) })).toThrow(/taskId is longer than 256 bytes/);
    expect(parseWebhookResponse({ success: true, poll: true, taskId: 't'.repeat(256) }).taskId).toHaveLength(256);
  });
});
