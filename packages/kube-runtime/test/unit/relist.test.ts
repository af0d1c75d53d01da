import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planRelist, type RelistChange } from '../../src/informer/relist.ts';

interface Obj {
  metadata: { name: string; resourceVersion: string };
}
const obj = (name: string, rv: string): Obj => ({ metadata: { name, resourceVersion: rv } });
const store = (...objs: Obj[]): Map<string, Obj> => new Map(objs.map((o) => [o.metadata.name, o]));
const describeChange = (c: RelistChange<Obj>): string =>
  c.type === 'delete' ? `delete ${c.key}@${c.old.metadata.resourceVersion}` : c.type === 'add' ? `add ${c.key}@${c.obj.metadata.resourceVersion}` : `update ${c.key}@${c.old.metadata.resourceVersion}->${c.obj.metadata.resourceVersion}`;

describe('planRelist', () => {
  const cases: { name: string; base: Map<string, Obj>; listed: Map<string, Obj>; want: string[] }[] = [
    { name: 'first list: all adds', base: store(), listed: store(obj('a', '1'), obj('b', '2')), want: ['add a@1', 'add b@2'] },
    { name: 'nothing changed: no event at all', base: store(obj('a', '1'), obj('b', '2')), listed: store(obj('a', '1'), obj('b', '2')), want: [] },
    { name: 'same resourceVersion, other instance: still no update', base: store(obj('a', '1')), listed: store({ metadata: { name: 'a', resourceVersion: '1' } }), want: [] },
    { name: 'moved on: update', base: store(obj('a', '1')), listed: store(obj('a', '7')), want: ['update a@1->7'] },
    { name: 'gone: delete with the last known state, after the listed changes', base: store(obj('a', '1'), obj('b', '2')), listed: store(obj('c', '3')), want: ['add c@3', 'delete a@1', 'delete b@2'] },
    { name: 'empty list empties the store', base: store(obj('a', '1')), listed: store(), want: ['delete a@1'] },
  ];
  it.each(cases)('$name', ({ base, listed, want }) => {
    expect(planRelist({ keys: () => base.keys(), getByKey: (k) => base.get(k) }, listed).map(describeChange)).toEqual(want);
  });

  it('applied to the old store, gives exactly the listed objects, one change per differing key', () => {
    const entries = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.constantFrom('1', '2', '3'));
    fc.assert(
      fc.property(entries, entries, (before, after) => {
        const base = new Map(Object.entries(before).map(([k, rv]) => [k, obj(k, rv)]));
        const listed = new Map(Object.entries(after).map(([k, rv]) => [k, obj(k, rv)]));
        const changes = planRelist({ keys: () => base.keys(), getByKey: (k) => base.get(k) }, listed);
        const result = new Map(base);
        for (const c of changes) {
          if (c.type === 'delete') result.delete(c.key);
          else result.set(c.key, c.obj);
        }
        expect(Object.fromEntries([...result].map(([k, o]) => [k, o.metadata.resourceVersion]))).toEqual(after);
        expect(new Set(changes.map((c) => c.key)).size).toBe(changes.length);
        const differing = new Set([...Object.keys(before), ...Object.keys(after)].filter((k) => before[k] !== after[k]));
        expect(changes.map((c) => c.key).sort()).toEqual([...differing].sort());
      }),
    );
  });
});
