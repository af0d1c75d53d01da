import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/client/types.ts';
import { Indexer, NamespaceIndex, OwnerUIDIndex, labelIndexFunc, labelIndexName, planIndexLookup } from '../../src/informer/indexer.ts';
import { labelSelectorMatches, labelSelectorToString } from '@cloneset-suite/api-types';
import { matchesLabels, parseLabelSelector } from '../../src/selectors.ts';
import { deepFreeze } from '../../src/util/deep-readonly.ts';

interface Pod extends KubeObject {
  spec?: { nodeName?: string };
}
const pod = (ns: string, name: string, labels: Record<string, string> = {}, extra: Partial<Pod> = {}): Pod =>
  deepFreeze({ metadata: { namespace: ns, name, labels, uid: `uid-${ns}-${name}` }, ...extra }) as Pod;

describe('label selectors', () => {
  it('parses every operator and matches', () => {
    const reqs = parseLabelSelector('app=web, tier!=db,env in (prod, staging),zone notin (z1),release,!canary,x==y');
    expect(reqs.map((r) => r.operator)).toEqual(['=', '!=', 'in', 'notin', 'exists', '!', '=']);
    expect(reqs[2]!.values).toEqual(['prod', 'staging']);
    const ok = { app: 'web', env: 'prod', release: '1', x: 'y' };
    expect(matchesLabels(reqs, ok)).toBe(true);
    expect(matchesLabels(reqs, { ...ok, canary: 'true' })).toBe(false);
    expect(matchesLabels(reqs, { ...ok, tier: 'db' })).toBe(false);
    expect(matchesLabels(reqs, { ...ok, env: 'dev' })).toBe(false);
    expect(matchesLabels(reqs, { ...ok, zone: 'z1' })).toBe(false);
    expect(matchesLabels([], undefined)).toBe(true);
    expect(() => parseLabelSelector('a in b')).toThrow(/invalid label selector/);
  });

  it('parses the canonical string of an object selector (api-types) back to the same matcher', () => {
    const sel = {
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'env', operator: 'In' as const, values: ['b', 'a'] },
        { key: 'gone', operator: 'DoesNotExist' as const },
        { key: 'has', operator: 'Exists' as const },
        { key: 'z', operator: 'NotIn' as const, values: ['1'] },
      ],
    };
    const text = labelSelectorToString(sel);
    expect(text).toBe('app=web,env in (a,b),!gone,has,z notin (1)');
    const labels = { app: 'web', env: 'a', has: '' };
    expect(matchesLabels(parseLabelSelector(text), labels)).toBe(labelSelectorMatches(sel, labels));
  });

  it('property: the parsed string form agrees with the api-types object matcher', () => {
    const keys = ['a', 'b', 'c'];
    const vals = ['1', '2', '3'];
    // Valid selectors only: values with In/NotIn, none with Exists/DoesNotExist.
    const expr = fc.oneof(
      fc.record({
        key: fc.constantFrom(...keys),
        operator: fc.constantFrom('In' as const, 'NotIn' as const),
        values: fc.uniqueArray(fc.constantFrom(...vals), { minLength: 1 }),
      }),
      fc.record({ key: fc.constantFrom(...keys), operator: fc.constantFrom('Exists' as const, 'DoesNotExist' as const) }),
    );
    const labels = fc.dictionary(fc.constantFrom(...keys), fc.constantFrom(...vals));
    fc.assert(
      fc.property(fc.array(expr, { maxLength: 4 }), fc.dictionary(fc.constantFrom(...keys), fc.constantFrom(...vals)), labels, (exprs, matchLabels, l) => {
        const sel = { matchLabels, matchExpressions: exprs };
        return matchesLabels(parseLabelSelector(labelSelectorToString(sel)), l) === labelSelectorMatches(sel, l);
      }),
    );
  });
});

describe('selector-to-index planning', () => {
  const names = new Set([NamespaceIndex, OwnerUIDIndex, labelIndexName('app')]);
  const sizes: Record<string, number> = { 'namespace:ns': 100, 'label:app:web': 3, 'label:app:api': 4 };
  const sizeOf = (index: string, values: readonly string[]) => values.reduce((n, v) => n + (sizes[`${index}:${v}`] ?? 0), 0);

  it('uses the smallest matching index, and none when no requirement can use one', () => {
    expect(planIndexLookup({ namespace: 'ns' }, names, sizeOf)).toEqual({ index: 'namespace', values: ['ns'] });
    expect(planIndexLookup({ namespace: 'ns', labelSelector: parseLabelSelector('app=web') }, names, sizeOf)).toEqual({
      index: 'label:app',
      values: ['web'],
    });
    expect(planIndexLookup({ labelSelector: parseLabelSelector('app in (web,api)') }, names, sizeOf)).toEqual({
      index: 'label:app',
      values: ['web', 'api'],
    });
    // != / notin / exists cannot narrow through an index
    expect(planIndexLookup({ labelSelector: parseLabelSelector('app!=web,!x,app') }, names, sizeOf)).toBeUndefined();
    expect(planIndexLookup({ labelSelector: parseLabelSelector('tier=db') }, names, sizeOf)).toBeUndefined();
  });
});

describe('Indexer', () => {
  it('indexes by namespace, owner uid and custom functions, and keeps indexes right on update/delete', () => {
    const idx = new Indexer<Pod>({ node: (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []) });
    const owner = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs', uid: 'owner-1', controller: true };
    idx.set(pod('a', 'p1', { app: 'web' }, { spec: { nodeName: 'n1' }, metadata: { namespace: 'a', name: 'p1', ownerReferences: [owner] } }));
    idx.set(pod('a', 'p2', { app: 'web' }, { spec: { nodeName: 'n2' } }));
    idx.set(pod('b', 'p3', {}, { spec: { nodeName: 'n1' } }));
    expect(idx.byIndex('node', 'n1').map((p) => p.metadata?.name).sort()).toEqual(['p1', 'p3']);
    expect(idx.byIndex(NamespaceIndex, 'a')).toHaveLength(2);
    expect(idx.byIndex(OwnerUIDIndex, 'owner-1').map((p) => p.metadata?.name)).toEqual(['p1']);
    // Move p1 to n2: the old index entry goes away.
    idx.set(pod('a', 'p1', { app: 'web' }, { spec: { nodeName: 'n2' } }));
    expect(idx.byIndex('node', 'n1').map((p) => p.metadata?.name)).toEqual(['p3']);
    expect(idx.byIndex(OwnerUIDIndex, 'owner-1')).toEqual([]);
    idx.delete('b/p3');
    expect(idx.byIndex('node', 'n1')).toEqual([]);
    expect(() => idx.byIndex('nope', 'x')).toThrow(/no index/);
    expect(() => idx.addIndexers({ node: () => [] })).toThrow(/already exists/);
  });

  it('list() through an index returns exactly what a full scan with the selector returns', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            ns: fc.constantFrom('a', 'b'),
            name: fc.constantFrom('p1', 'p2', 'p3', 'p4', 'p5'),
            app: fc.option(fc.constantFrom('web', 'api', 'db'), { nil: undefined }),
          }),
          { maxLength: 30 },
        ),
        fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
        fc.constantFrom('app=web', 'app in (web,db)', 'app!=web', '', 'app'),
        (specs, namespace, selector) => {
          const indexed = new Indexer<Pod>({ [labelIndexName('app')]: labelIndexFunc<Pod>('app') });
          const plain = new Indexer<Pod>();
          for (const s of specs) {
            const p = pod(s.ns, s.name, s.app ? { app: s.app } : {});
            indexed.set(p);
            plain.set(p);
          }
          const query = { namespace, labelSelector: parseLabelSelector(selector) };
          const keysOf = (ps: readonly Pod[]) => ps.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`).sort();
          const viaIndex = keysOf(indexed.list(query) as Pod[]);
          const scan = keysOf([...plain.values()].filter((p) => (!namespace || p.metadata?.namespace === namespace) && matchesLabels(query.labelSelector, p.metadata?.labels)) as Pod[]);
          expect(viaIndex).toEqual(scan);
        },
      ),
    );
  });

  it('indexes objects already stored when an indexer is added later', () => {
    const idx = new Indexer<Pod>();
    idx.set(pod('a', 'p1', { app: 'web' }));
    idx.addIndexers({ [labelIndexName('app')]: labelIndexFunc<Pod>('app') });
    expect(idx.byIndex('label:app', 'web')).toHaveLength(1);
  });
});
