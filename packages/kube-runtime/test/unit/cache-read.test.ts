// What a reconcile starts from: the cached primary object, nothing for a gone or turned-away one,
// and a wait while the cache is behind one of our own writes on it or on an owned object it controls.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/client/types.ts';
import { readPrimary, type CacheRead } from '../../src/controller/cache-read.ts';
import { ResourceVersionExpectations } from '../../src/expectations.ts';
import { FakeClock } from '../../src/util/clock.ts';
import type { DeepReadonly } from '../../src/util/deep-readonly.ts';

const OWNER = { group: 'apps.kruise.io', kind: 'CloneSet' };
const controlledBy = (owner: string) => [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: owner, uid: `u-${owner}`, controller: true }];
const cs = (rv: string, labels: Record<string, string> = {}): KubeObject => ({ metadata: { name: 'web', namespace: 'ns', resourceVersion: rv, labels } });
const pod = (name: string, rv: string, owner = 'web'): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv, ownerReferences: controlledBy(owner) } });
const storeOf = (...objs: KubeObject[]) => ({ getByKey: (key: string) => objs.find((o) => `${o.metadata?.namespace}/${o.metadata?.name}` === key) });

interface Case {
  cached: KubeObject | undefined;
  when?: (obj: DeepReadonly<KubeObject>) => boolean;
  /** Versions our writes returned, by key (primary and pods alike). */
  written: Record<string, string>;
  pods: KubeObject[];
  read: CacheRead<KubeObject>['kind'];
  behind?: string[];
}

function read(c: Case): CacheRead<KubeObject> {
  const clock = new FakeClock();
  const primaryWrites = new ResourceVersionExpectations({ clock });
  const podWrites = new ResourceVersionExpectations({ clock });
  for (const [key, rv] of Object.entries(c.written)) (key === 'ns/web' ? primaryWrites : podWrites).expect(key, rv);
  return readPrimary('ns/web', { store: storeOf(...(c.cached ? [c.cached] : [])), when: c.when, writes: primaryWrites }, [{ store: storeOf(...c.pods), writes: podWrites, owner: OWNER }]);
}

describe('readPrimary', () => {
  it.each<[string, Case]>([
    ['the cached object when nothing of ours is in flight', { cached: cs('5'), written: {}, pods: [pod('web-1', '3')], read: 'current' }],
    ['nothing for an object gone from the cache', { cached: undefined, written: { 'ns/web': '9' }, pods: [], read: 'gone' }],
    ['nothing for an object `when` turns away', { cached: cs('5', { skip: 'yes' }), when: (o) => !o.metadata?.labels?.['skip'], written: {}, pods: [], read: 'gone' }],
    ['a wait while the cached object is older than our write on it', { cached: cs('5'), written: { 'ns/web': '6' }, pods: [], read: 'behindOwnWrites', behind: ['ns/web'] }],
    ['the object once the cache shows our write, or later', { cached: cs('7'), written: { 'ns/web': '6' }, pods: [], read: 'current' }],
    ['a wait while an owned pod is older than our write on it', { cached: cs('5'), written: { 'ns/web-1': '8' }, pods: [pod('web-1', '7'), pod('web-2', '1')], read: 'behindOwnWrites', behind: ['ns/web-1'] }],
    ["no wait on another owner's pod", { cached: cs('5'), written: { 'ns/db-1': '8' }, pods: [pod('db-1', '7', 'db')], read: 'current' }],
    ['no wait on a written pod gone from the cache', { cached: cs('5'), written: { 'ns/web-1': '8' }, pods: [], read: 'current' }],
  ])('%s', (_name, c) => {
    const got = read(c);
    expect(got.kind).toBe(c.read);
    if (got.kind === 'behindOwnWrites') expect(got.keys).toEqual(c.behind);
    if (got.kind === 'current') expect(got.obj).toBe(c.cached);
  });

  it('a wait times out with the expectation: a write whose event never comes holds the key no longer', async () => {
    const clock = new FakeClock();
    const writes = new ResourceVersionExpectations({ clock, timeoutMs: 60_000 });
    writes.expect('ns/web', '6');
    const primary = { store: storeOf(cs('5')), when: undefined, writes };
    expect(readPrimary('ns/web', primary, []).kind).toBe('behindOwnWrites');
    await clock.advance(60_000);
    expect(readPrimary('ns/web', primary, []).kind).toBe('current');
  });

  it('is current exactly when every cached version is at least the one our write returned', () => {
    fc.assert(
      fc.property(fc.nat(20), fc.option(fc.nat(20), { nil: undefined }), fc.array(fc.tuple(fc.nat(20), fc.option(fc.nat(20), { nil: undefined })), { maxLength: 5 }), (csRv, csWritten, pods) => {
        const clock = new FakeClock();
        const primaryWrites = new ResourceVersionExpectations({ clock });
        const podWrites = new ResourceVersionExpectations({ clock });
        if (csWritten !== undefined) primaryWrites.expect('ns/web', String(csWritten));
        pods.forEach(([, written], i) => written !== undefined && podWrites.expect(`ns/web-${i}`, String(written)));
        const cached = pods.map(([rv], i) => pod(`web-${i}`, String(rv)));
        const got = readPrimary('ns/web', { store: storeOf(cs(String(csRv))), when: undefined, writes: primaryWrites }, [{ store: storeOf(...cached), writes: podWrites, owner: OWNER }]);
        const current = (csWritten === undefined || csRv >= csWritten) && pods.every(([rv, written]) => written === undefined || rv >= written);
        expect(got.kind).toBe(current ? 'current' : 'behindOwnWrites');
      }),
    );
  });
});
