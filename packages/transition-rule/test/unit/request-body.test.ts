// The POST body is bounded: parameters per rule, each rendered value, pods per call, serialized bytes.
import fc from 'fast-check';
import { PTR_MAX_PARAMETER_VALUE_BYTES, PTR_MAX_WEBHOOK_PARAMETERS } from '@cloneset-suite/api-types';
import { describe, expect, it } from 'vitest';
import { MAX_PODS_PER_CALL, MAX_REQUEST_BODY_BYTES, RequestBoundError, buildRequestBody } from '../../src/core/request-body.ts';

const pod = (name: string, annotations: Record<string, string> = {}) => ({ metadata: { name, namespace: 'ns', annotations } });
const base = { traceId: 't', stage: 'PreCheck', ruleName: 'r' };

describe('buildRequestBody', () => {
  it('sends every pod with its parameters when within the bounds, and says how many bytes', () => {
    const out = buildRequestBody({ ...base, pods: [pod('a', { x: '1' }), pod('b')], parameters: [{ key: 'x', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['x']" } } }] });
    expect(out.body.resources).toEqual([
      { apiVersion: 'v1', kind: 'Pod', name: 'a', parameters: { x: '1' } },
      { apiVersion: 'v1', kind: 'Pod', name: 'b', parameters: { x: '' } },
    ]);
    expect(out.deferred).toEqual([]);
    expect(out.bytes).toBe(Buffer.byteLength(JSON.stringify(out.body)));
  });

  it(`carries at most ${MAX_PODS_PER_CALL} pods; the rest wait for the next call`, () => {
    const pods = Array.from({ length: MAX_PODS_PER_CALL + 5 }, (_, i) => pod(`p${i}`));
    const out = buildRequestBody({ ...base, pods, parameters: undefined });
    expect(out.body.resources).toHaveLength(MAX_PODS_PER_CALL);
    expect(out.deferred.map((p) => p.metadata?.name)).toEqual(['p100', 'p101', 'p102', 'p103', 'p104']);
  });

  it('stops before the byte cap: the body never exceeds it', () => {
    const big = 'v'.repeat(PTR_MAX_PARAMETER_VALUE_BYTES);
    const parameters = Array.from({ length: PTR_MAX_WEBHOOK_PARAMETERS }, (_, i) => ({ key: `k${i}`, value: big }));
    const pods = [pod('a'), pod('b'), pod('c')];
    const out = buildRequestBody({ ...base, pods, parameters });
    // 32 x 16 KiB = 512 KiB a pod: one fits in 1 MiB, two do not.
    expect(out.body.resources.map((r) => r.name)).toEqual(['a']);
    expect(out.deferred.map((p) => p.metadata?.name)).toEqual(['b', 'c']);
    expect(Buffer.byteLength(JSON.stringify(out.body))).toBeLessThanOrEqual(MAX_REQUEST_BODY_BYTES);
  });

  it('a rendered parameter over its bound fails the request, naming the parameter and the pod', () => {
    const parameters = [{ key: 'all', valueFrom: { fieldRef: { fieldPath: 'metadata.annotations' } } }];
    const pods = [pod('small'), pod('huge', { blob: 'x'.repeat(200 * 1024) })];
    expect(() => buildRequestBody({ ...base, pods, parameters })).toThrow(RequestBoundError);
    expect(() => buildRequestBody({ ...base, pods, parameters })).toThrow(new RegExp(`^parameter all of pod huge renders to \\d+ bytes, more than ${PTR_MAX_PARAMETER_VALUE_BYTES}$`));
  });

  it('more parameters than a rule may have fails the request (admission refuses them too)', () => {
    const parameters = Array.from({ length: PTR_MAX_WEBHOOK_PARAMETERS + 1 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    expect(() => buildRequestBody({ ...base, pods: [pod('a')], parameters })).toThrow(/the rule has 33 parameters, at most 32 are sent/);
  });

  it('a pod whose resource alone is over the byte cap fails the request', () => {
    expect(() => buildRequestBody({ ...base, pods: [pod('a')], parameters: [{ key: 'k', value: 'x'.repeat(2_000) }], maxBytes: 1_000 })).toThrow(/pod a alone makes a request of \d+ bytes, more than 1000/);
  });

  it('property: the body is within the caps, and sent plus deferred are the pods in order', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 300 }), { maxLength: 40 }), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 2_000, max: 20_000 }), (values, maxPods, maxBytes) => {
        const pods = values.map((v, i) => pod(`p${i}`, { v }));
        const out = buildRequestBody({ ...base, pods, parameters: [{ key: 'v', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['v']" } } }], maxPods, maxBytes });
        expect(out.body.resources.length).toBeLessThanOrEqual(maxPods);
        expect(Buffer.byteLength(JSON.stringify(out.body))).toBe(out.bytes);
        expect(out.bytes).toBeLessThanOrEqual(maxBytes);
        expect([...out.body.resources.map((r) => r.name), ...out.deferred.map((p) => p.metadata?.name)]).toEqual(pods.map((p) => p.metadata?.name));
      }),
    );
  });
});
