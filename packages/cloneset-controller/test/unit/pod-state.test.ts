import { describe, expect, it } from 'vitest';
import {
  classifyPods,
  isActive,
  isAvailable,
  isReady,
  isSpecifiedDelete,
  isUpdateReady,
  revisionMatches,
  instanceIdOf,
} from '../../src/core/pods/pod-state.ts';
import { CS_UID, NOW, cloneSet, pod } from './fixtures.ts';

describe('active', () => {
  it.each([
    ['Running', false, true],
    ['Pending', false, true],
    ['Succeeded', false, false],
    ['Failed', false, false],
    ['Running', true, false],
  ])('phase %s deleting=%s -> %s', (phase, deleting, want) => {
    expect(isActive(pod({ phase, deleting }))).toBe(want);
  });
});

describe('update-ready / ready / available', () => {
  it.each([
    // opts, minReadySeconds, updateReady, ready, available
    [{}, 0, true, true, true],
    [{ ready: false }, 0, false, false, false],
    [{ phase: 'Pending' }, 0, false, false, false],
    [{ ipuReady: false }, 0, false, false, false],
    [{ ipuReady: true }, 0, true, true, true],
    [{ readySinceSec: 10 }, 30, false, true, false],
    [{ readySinceSec: 30 }, 30, false, true, false], // strictly before now
    [{ readySinceSec: 31 }, 30, true, true, true],
    [{ state: 'Normal' }, 0, true, true, true],
    [{ state: 'PreparingNormal' }, 0, true, false, false],
    [{ state: 'Updated' }, 0, true, false, false],
    [{ state: 'PreparingDelete' }, 0, true, false, false],
  ])('%o m=%i', (opts, m, updateReady, ready, available) => {
    const p = pod(opts);
    expect(isUpdateReady(p, m, NOW)).toBe(updateReady);
    expect(isReady(p, NOW)).toBe(ready);
    expect(isAvailable(p, m, NOW)).toBe(available);
  });
});

describe('revision match', () => {
  it.each([
    ['cs-abc', 'cs-abc', true],
    ['abc', 'cs-abc', true],
    ['cs-abc', 'other-abc', true],
    ['cs-abd', 'cs-abc', false],
    ['', 'cs-abc', false],
  ])('%s vs %s', (label, rev, want) => {
    expect(revisionMatches(label, rev)).toBe(want);
  });
});

describe('specified-delete and instance id', () => {
  it('label with any value or name in podsToDelete', () => {
    expect(isSpecifiedDelete(pod({ sd: true }), [])).toBe(true);
    expect(isSpecifiedDelete(pod({ name: 'cs-x' }), ['cs-x'])).toBe(true);
    expect(isSpecifiedDelete(pod({ name: 'cs-x' }), new Set(['cs-x']))).toBe(true);
    expect(isSpecifiedDelete(pod({ name: 'cs-y' }), ['cs-x'])).toBe(false);
    expect(instanceIdOf(pod({ id: 'bcdfg' }))).toBe('bcdfg');
  });
});

describe('claiming (orphans are never adopted)', () => {
  it('claims matching controlled pods, releases non-matching ones, never adopts orphans', () => {
    const cs = cloneSet();
    const owned = pod({ name: 'owned' });
    const released = pod({ name: 'released', labels: { app: 'other' } });
    const refOnly = pod({ name: 'ref-only', owner: 'ref' });
    const orphan = pod({ name: 'orphan', owner: 'none' });
    const foreign = pod({ name: 'foreign', owner: 'other' });
    const gone = pod({ name: 'gone', phase: 'Failed' });
    const r = classifyPods(cs, [owned, released, refOnly, orphan, foreign, gone]);
    expect(r.claimed.map((p) => p.metadata!.name)).toEqual(['owned', 'ref-only']);
    expect(r.toRelease.map((p) => p.metadata!.name)).toEqual(['released']);
    expect(r.toAdopt.map((p) => p.metadata!.name)).toEqual(['ref-only']);
    expect(r.inactive.map((p) => p.metadata!.name)).toEqual(['gone']);
    expect(CS_UID).toBe(cs.metadata.uid);
  });

  it('neither adopts nor releases while the CloneSet is being deleted', () => {
    const cs = cloneSet({}, { metadata: { name: 'cs', uid: CS_UID, deletionTimestamp: new Date(NOW) } });
    const r = classifyPods(cs, [pod({ name: 'released', labels: { app: 'other' } }), pod({ name: 'ref', owner: 'ref' })]);
    expect(r.toRelease).toEqual([]);
    expect(r.toAdopt).toEqual([]);
    expect(r.claimed).toEqual([]);
  });
});
