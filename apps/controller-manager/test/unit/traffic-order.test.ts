// The cluster test's ordering check (test/support/traffic-order.ts) on hand-made slice histories.
import { describe, expect, it } from 'vitest';
import { servicesListingReady, type SliceVersion } from '../support/traffic-order.ts';

const slice = (type: string, uid: string, rv: number, ready: Record<string, boolean>): SliceVersion => ({
  type,
  object: {
    metadata: { uid, resourceVersion: String(rv), labels: { 'kubernetes.io/service-name': `svc-${uid}` } },
    endpoints: Object.entries(ready).map(([pod, r]) => ({ conditions: { ready: r }, targetRef: { kind: 'Pod', uid: pod } })),
  },
});

describe('servicesListingReady', () => {
  const history = [slice('ADDED', 'a', 10, { p1: true }), slice('ADDED', 'b', 11, { p1: true }), slice('MODIFIED', 'a', 20, { p1: false }), slice('DELETED', 'b', 25, { p1: true })];

  it('reads every slice as of the resourceVersion', () => {
    expect(servicesListingReady(history, 'p1', '9')).toEqual([]);
    expect(servicesListingReady(history, 'p1', '15')).toEqual(['svc-a', 'svc-b']);
    expect(servicesListingReady(history, 'p1', '20')).toEqual(['svc-b']);
    expect(servicesListingReady(history, 'p1', '30')).toEqual([]);
  });

  it('compares resourceVersions as numbers, not strings', () => {
    expect(servicesListingReady([slice('ADDED', 'a', 9, { p1: true }), slice('MODIFIED', 'a', 100, { p1: false })], 'p1', '99')).toEqual(['svc-a']);
  });

  it('a missing ready condition counts as ready, another pod does not count', () => {
    const s = slice('ADDED', 'a', 1, { p2: true });
    s.object.endpoints!.push({ targetRef: { kind: 'Pod', uid: 'p1' } });
    expect(servicesListingReady([s], 'p1', '1')).toEqual(['svc-a']);
    expect(servicesListingReady([slice('ADDED', 'a', 1, { p2: true })], 'p1', '1')).toEqual([]);
  });
});
