import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultCloneSet, type CloneSet } from '@cloneset-suite/api-types';
import { semanticallyEqual } from '../../src/core/revisions/canonical.ts';
import { goMarshal, goNumber, goQuote } from '../../src/core/revisions/go-json.ts';
import { goQuantity } from '../../src/core/revisions/go-quantity.ts';
import { goPodTemplate } from '../../src/core/revisions/go-template-encoder.ts';
import { SAFE_ALPHABET, fnv1x32, revisionDataText, revisionHash, safeEncode } from '../../src/core/revisions/revision-bytes.ts';
import { revisionName } from '../../src/core/revisions/revisions.ts';
import { firstByteDifference, loadKruiseRevisions } from '@cloneset-suite/local-cluster';
import { POD_TEMPLATE_GO_TYPES } from '../../src/core/revisions/pod-template-go-types.ts';
import { anyStructInTemplateArbitrary, podTemplateArbitrary, reachableStructCount } from './go-template-arbitrary.ts';

const entries = loadKruiseRevisions<CloneSet>();

describe('revision data and name, byte for byte as OpenKruise v1.8.4 made them', () => {
  it('covers every entry of the test data', () => {
    expect(entries.length).toBe(31);
  });

  it.each(entries.map((e) => [e.revisionName, e] as const))('%s: data', (_name, entry) => {
    const data = revisionDataText(entry.cloneSet.spec.template);
    expect(firstByteDifference(entry.data, data), entry.note).toBeUndefined();
  });

  it.each(entries.map((e) => [e.revisionName, e] as const))('%s: hash and name', (_name, entry) => {
    const hash = revisionHash(entry.data, entry.collisionCount);
    expect(hash).toBe(entry.hash);
    expect(revisionName(entry.cloneSet.metadata?.name ?? '', hash)).toBe(entry.revisionName);
  });

  it('labels pods with the full name and the hash', () => {
    for (const entry of entries.filter((e) => Object.keys(e.podRevisionLabels).length > 0)) {
      expect(entry.podRevisionLabels['controller-revision-hash']).toBe(entry.revisionName);
      expect(entry.podRevisionLabels['pod-template-hash']).toBe(entry.hash);
    }
  });
});

describe('FNV-1 32 and safe encoding', () => {
  it('is FNV-1, not FNV-1a (README example)', () => {
    expect(fnv1x32(new TextEncoder().encode(''))).toBe(2166136261);
    // FNV-1 of "a" is 0x050c5d7e; FNV-1a would give 0xe40c292c.
    expect(fnv1x32(new TextEncoder().encode('a'))).toBe(0x050c5d7e);
    const minimal = entries.find((e) => e.revisionName.startsWith('minimal-'))!;
    expect(fnv1x32(new TextEncoder().encode(`${minimal.data}0`))).toBe(3549017197);
  });

  it('maps digits 0-9 to 4 5 6 7 8 9 b c d f', () => {
    expect(safeEncode('0123456789')).toBe('456789bcdf');
    fc.assert(fc.property(fc.nat(), (n) => new RegExp(`^[${SAFE_ALPHABET}]{1,10}$`).test(safeEncode(String(n >>> 0)))));
  });

  it('appends the collision count', () => {
    expect(revisionHash('{}', 0)).not.toBe(revisionHash('{}', 1));
    expect(revisionHash('{}', 1)).toBe(safeEncode(String(fnv1x32(new TextEncoder().encode('{}1')))));
  });
});

describe("Go's encoding/json text", () => {
  it.each([
    ['<a & b>', '"\\u003ca \\u0026 b\\u003e"'],
    ['tab\tnl\ncr\r\u0001', '"tab\\tnl\\ncr\\r\\u0001"'],
    ['\b\f', '"\\b\\f"'],
    ['line\u2028sep\u2029para', '"line\\u2028sep\\u2029para"'],
    ['say "hi" \\', '"say \\"hi\\" \\\\"'],
    ['héllo 😀 \u007f', '"héllo 😀 \u007f"'],
    ['lone \ud800', '"lone \ufffd"'],
  ])('quotes %j', (input, expected) => {
    expect(goQuote(input)).toBe(expected);
  });

  it.each([
    [9007199254740993n, '9007199254740992'],
    [9223372036854775807n, '9223372036854776000'],
    [-9223372036854775808n, '-9223372036854776000'],
    [1e21, '1e+21'],
    [1.5e-7, '1.5e-7'],
    [0.000001, '0.000001'],
    [-0, '-0'],
    [2147483647, '2147483647'],
  ])('writes %s as %s', (input, expected) => {
    expect(goNumber(input)).toBe(expected);
  });

  it('sorts keys by UTF-8 bytes, not UTF-16 units', () => {
    // U+FF5E sorts before U+1F600 in UTF-16 (0xFF5E > 0xD83D is false) but after in UTF-8? No:
    // UTF-8 of U+FF5E is EF BD 9E and of U+1F600 is F0 9F 98 80, so U+FF5E comes first in Go.
    expect(goMarshal({ '😀': 1, '～': 2, '9': 3, '10': 4 })).toBe('{"10":4,"9":3,"～":2,"😀":1}');
  });
});

describe("Go's resource.Quantity text", () => {
  it.each([
    ['0.5', '500m'],
    ['2000m', '2'],
    ['1.5', '1500m'],
    ['0.5Gi', '512Mi'],
    ['1e3', '1e3'],
    ['129e6', '129e6'],
    ['1G', '1G'],
    ['128974848', '128974848'],
    ['1024Ki', '1Mi'],
    ['1.5Ki', '1536'],
    ['0.1Mi', '104857600m'],
    ['1e-12', '1e-9'],
    ['-0.0000000001', '-1n'],
    ['12e2', '1200'],
    ['1e-1', '100e-3'],
    ['+5', '+5'],
    ['007', '007'],
    ['100Ei', '9223372036854775807'],
    ['1000E', '1'],
    ['1000000000m', '1M'],
  ])('%s -> %s', (input, expected) => {
    expect(goQuantity(input)).toBe(expected);
  });

  it('refuses what Go refuses', () => {
    expect(goQuantity('1Ki3')).toBeUndefined();
    expect(goQuantity('abc')).toBeUndefined();
    expect(goQuantity('')).toBeUndefined();
  });
});

describe("the Go types' shape", () => {
  it('drops unknown fields and omitempty zeros, and writes what Go always writes', () => {
    const encoded = goPodTemplate({
      metadata: { labels: { app: 'x' }, annotations: {} },
      spec: {
        containers: [{ name: 'main', image: 'nginx', args: [], unknownField: 1, readinessProbe: { grpc: { port: 1 }, initialDelaySeconds: 0 } }],
        resources: { limits: { cpu: '1' } },
        hostNetwork: false,
        volumes: [{ name: 'h', hostPath: { path: '/x', type: '' } }],
        containersTypo: [],
      },
    });
    expect(encoded).toEqual({
      metadata: { creationTimestamp: null, labels: { app: 'x' } },
      spec: {
        containers: [{ name: 'main', image: 'nginx', resources: {}, readinessProbe: { grpc: { port: 1, service: null } } }],
        volumes: [{ name: 'h', hostPath: { path: '/x', type: '' } }],
      },
    });
  });

  it('writes a zero divisor and a nil containers list as Go does', () => {
    expect(goPodTemplate({ spec: { containers: [{ name: 'c', env: [{ name: 'e', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }] }] } })).toEqual({
      metadata: { creationTimestamp: null },
      spec: { containers: [{ name: 'c', env: [{ name: 'e', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '0' } } }], resources: {} }] },
    });
    expect(goPodTemplate({})).toEqual({ metadata: { creationTimestamp: null }, spec: { containers: null } });
  });
});

describe('the encoder round trip (property)', () => {
  it('reaches every struct of the Go types table from PodTemplateSpec', () => {
    expect(reachableStructCount()).toBe(Object.keys(POD_TEMPLATE_GO_TYPES).length);
  });

  it.each([
    ['whole templates', podTemplateArbitrary],
    ['every struct type in its place', anyStructInTemplateArbitrary],
  ])('parses back to a template semantically equal to its input: %s', (_what, arbitrary) => {
    fc.assert(
      fc.property(arbitrary(), (template) => {
        const parsed = (JSON.parse(revisionDataText(template)) as { spec: { template: unknown } }).spec.template;
        return semanticallyEqual(parsed, template);
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent: encoding what it wrote writes the same bytes', () => {
    fc.assert(
      fc.property(anyStructInTemplateArbitrary(), (template) => {
        const data = revisionDataText(template);
        const parsed = (JSON.parse(data) as { spec: { template: unknown } }).spec.template;
        return revisionDataText(parsed) === data;
      }),
      { numRuns: 500 },
    );
  });
});

describe('our admission defaulting on what OpenKruise stored', () => {
  it.each(entries.map((e) => [e.revisionName, e] as const))('%s: the CloneSet goes through unchanged', (_name, entry) => {
    expect(defaultCloneSet(entry.cloneSet)).toEqual(entry.cloneSet);
  });
});
