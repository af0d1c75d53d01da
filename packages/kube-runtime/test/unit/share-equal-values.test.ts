import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/client/types.ts';
import { shareEqualValues, type CachePools } from '../../src/informer/share-equal-values.ts';
import { StringPool } from '../../src/informer/string-pool.ts';
import { SubtreePool } from '../../src/informer/subtree-pool.ts';
import { stripManagedFields } from '../../src/informer/transform.ts';
import { deepFreeze } from '../../src/util/deep-readonly.ts';

const pod = (): KubeObject & Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-abcde',
    generateName: 'web-',
    namespace: 'ns',
    uid: 'pod-uid',
    resourceVersion: '42',
    labels: { app: 'web', 'apps.kruise.io/cloneset-instance-id': 'abcde' },
    ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid: 'owner-uid', controller: true }],
    managedFields: [{ manager: 'kruise', operation: 'Update' }],
  },
  spec: { nodeName: 'node-1', containers: [{ name: 'main', image: 'nginx:1.27', resources: { requests: { cpu: '10m' } } }], securityContext: {} },
  status: {
    phase: 'Running',
    podIP: '10.0.0.7',
    podIPs: [{ ip: '10.0.0.7' }],
    hostIP: '192.168.0.1',
    conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' }],
    containerStatuses: [{ name: 'main', image: 'nginx:1.27', containerID: 'containerd://abc', ready: true, restartCount: 0 }],
  },
});

/** Marks every string it is handed, so the output shows which strings went through it. */
const marking = (): CachePools => ({ strings: { share: (s) => ({ value: `<${s}>`, ref: `'${JSON.stringify(s)}` }) }, subtrees: new SubtreePool() });
const pools = (maxEntries?: number): CachePools => ({ strings: new StringPool({ maxEntries }), subtrees: new SubtreePool({ maxEntries }) });

/**
 * JSON from a tiny universe, its strings made of what a content key is built of: equal and
 * almost equal subtrees are common, so a key that could read two ways would merge them.
 */
const trickyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    fc.constantFrom('a', 'a,sa', 's1:a', '', 'n1', 0, -0, 1, true, null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 's', '1:a'), tie('value'), { maxKeys: 2, noNullPrototype: true }),
  ),
})).value;

describe('shareEqualValues', () => {
  it('sends every string value through the pool but the object\'s own identity, container ids and pod IPs', () => {
    const out = shareEqualValues(stripManagedFields(pod()), marking());
    expect(out).toEqual({
      apiVersion: '<v1>',
      kind: '<Pod>',
      metadata: {
        name: 'web-abcde',
        generateName: '<web->',
        namespace: '<ns>',
        uid: 'pod-uid',
        resourceVersion: '42',
        labels: { app: '<web>', 'apps.kruise.io/cloneset-instance-id': '<abcde>' },
        ownerReferences: [{ apiVersion: '<apps.kruise.io/v1alpha1>', kind: '<CloneSet>', name: '<web>', uid: '<owner-uid>', controller: true }],
      },
      spec: { nodeName: '<node-1>', containers: [{ name: '<main>', image: '<nginx:1.27>', resources: { requests: { cpu: '<10m>' } } }], securityContext: {} },
      status: {
        phase: '<Running>',
        podIP: '10.0.0.7',
        podIPs: [{ ip: '10.0.0.7' }],
        hostIP: '<192.168.0.1>',
        conditions: [{ type: '<Ready>', status: '<True>', lastProbeTime: null, lastTransitionTime: '<2026-01-01T00:00:00Z>' }],
        containerStatuses: [{ name: '<main>', image: '<nginx:1.27>', containerID: 'containerd://abc', ready: true, restartCount: 0 }],
      },
    });
  });

  it('leaves frozen parts alone (they already belong to a cache)', () => {
    const obj = { metadata: { name: 'a' }, spec: deepFreeze({ image: 'x' }), status: { phase: 'Running' } };
    expect(shareEqualValues(obj, marking())).toEqual({ metadata: { name: 'a' }, spec: { image: 'x' }, status: { phase: '<Running>' } });
  });

  it('what the informer caches deep-equals what was served, managedFields aside (arbitrary JSON objects, one pool for all)', () => {
    const shared = pools(16);
    const json = fc.jsonValue({ maxDepth: 4 });
    const served = fc.record({
      metadata: fc.record({ name: fc.string({ minLength: 1 }), uid: fc.string(), labels: fc.dictionary(fc.string(), fc.string()), managedFields: fc.array(json) }, { requiredKeys: ['name'] }),
      spec: json,
      status: json,
    });
    fc.assert(
      fc.property(fc.array(served, { minLength: 1, maxLength: 12 }), (objects) => {
        for (const o of objects) {
          // Both sides decoded from the same text, as the informer gets them.
          const text = JSON.stringify(o);
          const cached = deepFreeze(shareEqualValues(stripManagedFields(JSON.parse(text) as KubeObject), shared));
          const expected = JSON.parse(text) as typeof o;
          delete (expected.metadata as Partial<typeof o.metadata>).managedFields;
          expect(cached).toStrictEqual(expected);
        }
      }),
    );
  });

  it('never merges subtrees that differ: every object of a run cached through one pool deep-equals its source', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.tuple(trickyJson, trickyJson), { minLength: 2, maxLength: 10 }), (maxEntries, parts) => {
        const shared = pools(maxEntries);
        for (const [i, [spec, status]] of parts.entries()) {
          const source = { metadata: { name: `o${i}` }, spec, status };
          // -0 has no JSON form (it is written 0): compare what the informer would get.
          const cached = deepFreeze(shareEqualValues(structuredClone(source), shared));
          expect(cached).toStrictEqual(source);
        }
      }),
      {
        numRuns: 300,
        // Look-alikes a careless key would merge: ["a","a"] and ["a,sa"]; 0 and -0; a key name in a value.
        examples: [
          [1, [[['a', 'a'], null], [['a,sa'], null]]],
          [1, [[{ a: 0 }, -0], [{ a: -0 }, 0]]],
          [1, [[{ a: 'n1' }, { '1:a': 1 }], [{ a: 'n1' }, { a: 1 }]]],
        ],
      },
    );
  });

  it('never puts one object in two places of a result (a copy would keep the aliasing, and editing one place would change the other)', () => {
    const objectsOf = (value: unknown, seen: Set<object>): boolean => {
      if (value === null || typeof value !== 'object') return true;
      if (seen.has(value)) return false;
      seen.add(value);
      return Object.values(value).every((v) => objectsOf(v, seen));
    };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.tuple(trickyJson, trickyJson), { minLength: 1, maxLength: 6 }), (maxEntries, parts) => {
        const shared = pools(maxEntries);
        return parts.every(([spec, status], i) => objectsOf(deepFreeze(shareEqualValues(JSON.parse(JSON.stringify({ metadata: { name: `o${i}`, labels: spec }, spec, status, extra: spec })), shared)), new Set()));
      }),
      { numRuns: 300 },
    );
  });

  it('a CloneSet whose selector equals its template\'s labels: a copy edited in one place keeps the other', () => {
    const shared = pools();
    const cloneSet = (name: string) => ({
      metadata: { name },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } } } },
    });
    deepFreeze(shareEqualValues(cloneSet('first'), shared));
    const cached = deepFreeze(shareEqualValues(cloneSet('second'), shared));
    const copy = structuredClone(cached) as ReturnType<typeof cloneSet>;
    (copy.spec.template.metadata.labels as Record<string, string>).tier = 'front';
    expect(copy.spec.selector.matchLabels).toEqual({ app: 'web' });
  });

  it('shares equal subtrees between objects, and none that holds something unique to its object', () => {
    const shared = pools();
    type Pod = ReturnType<typeof pod>;
    const cached = (name: string): Pod => {
      const p = pod();
      (p.metadata as { name: string }).name = name;
      return deepFreeze(shareEqualValues(stripManagedFields(p), shared)) as Pod;
    };
    const a = cached('web-a');
    const b = cached('web-b');
    const spec = (p: Pod): Record<string, unknown> => p.spec as Record<string, unknown>;
    const status = (p: Pod): Record<string, unknown> => p.status as Record<string, unknown>;
    expect(spec(b)).toBe(spec(a));
    expect(status(b).conditions).toBe(status(a).conditions);
    expect(a.metadata?.ownerReferences).toBe(b.metadata?.ownerReferences);
    expect(a.metadata).not.toBe(b.metadata);
    // Pod IPs and container ids are unique to a pod: what holds them is its own.
    expect(status(b)).not.toBe(status(a));
    expect(status(b).containerStatuses).not.toBe(status(a).containerStatuses);
  });
});
