import { describe, expect, it } from 'vitest';
import { apiResourceOf, diffSnapshots } from '../../src/controller-protocol.ts';
import { markdownTable } from '../../src/report.ts';
import { NO_STALLS, addTick } from '../../src/loop-stalls.ts';

describe('apiResourceOf', () => {
  it('names the resource and subresource of an API path', () => {
    expect(apiResourceOf('/api/v1/namespaces/ns/pods')).toBe('pods');
    expect(apiResourceOf('/api/v1/namespaces/ns/pods/p-1/status')).toBe('pods/status');
    expect(apiResourceOf('/apis/apps.kruise.io/v1alpha1/namespaces/ns/clonesets/app/status')).toBe('clonesets/status');
    expect(apiResourceOf('/apis/events.k8s.io/v1/namespaces/ns/events')).toBe('events');
    expect(apiResourceOf('/api/v1/nodes/n-1')).toBe('nodes');
    expect(apiResourceOf('/api/v1/namespaces/ns')).toBe('namespaces');
  });
});

describe('diffSnapshots', () => {
  it('subtracts counts and CPU time, drops kinds that did not change, keeps the later memory and event-loop window', () => {
    const before = { writes: 3, byKind: { 'POST pods': 2, 'PATCH pods': 1 }, reconciles: 5, heapUsedBytes: 1, rssBytes: 10, cpuMicros: 1_000, eventLoop: { p99Ms: 9, maxMs: 20, stalls: NO_STALLS } };
    const after = { writes: 6, byKind: { 'POST pods': 2, 'PATCH pods': 3, 'DELETE pods': 1 }, reconciles: 9, heapUsedBytes: 2, rssBytes: 20, cpuMicros: 251_000, eventLoop: { p99Ms: 3, maxMs: 7, stalls: addTick(NO_STALLS, 30, 4) } };
    expect(diffSnapshots(before, after)).toEqual({
      writes: 3,
      byKind: { 'PATCH pods': 2, 'DELETE pods': 1 },
      reconciles: 4,
      heapUsedBytes: 2,
      rssBytes: 20,
      cpuMicros: 250_000,
      eventLoop: { p99Ms: 3, maxMs: 7, stalls: addTick(NO_STALLS, 30, 4) },
    });
  });
});

describe('markdownTable', () => {
  it('escapes pipes and renders a header separator', () => {
    expect(markdownTable(['a', 'b'], [[1, 'x|y']])).toBe('| a | b |\n| --- | --- |\n| 1 | x\\|y |');
  });
});
