import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/pods.ts';
import { SPEC_GATES, specPodWrites, withSpecPodFields, type SpecPodWriteKind } from '../../src/spec-pod-writes.ts';
import { deployment, podTemplate } from '../../src/workloads.ts';

const NOW = '2026-11-26T12:00:00.000Z';
const STATE = 'lifecycle.apps.kruise.io/state';
const none = new Set<SpecPodWriteKind>();

function pod(overrides: { nodeName?: string; state?: string; gatesTrue?: readonly string[]; deleting?: boolean } = {}): Pod {
  return {
    metadata: {
      name: 'app-1',
      uid: 'u1',
      labels: { app: 'app', [STATE]: overrides.state ?? 'PreparingNormal' },
      ...(overrides.deleting ? { deletionTimestamp: NOW } : {}),
    },
    spec: { ...(overrides.nodeName ? { nodeName: overrides.nodeName } : {}), containers: [{ name: 'main', image: 'x' }] },
    status: { conditions: (overrides.gatesTrue ?? []).map((type) => ({ type, status: 'True' })) },
  };
}

describe("the CloneSet's pod writes for a Deployment's pods", () => {
  it("gives the Deployment's pod template the CloneSet's readiness gates and initial state, keeping the rest", () => {
    const template = podTemplate('app', 'img:v1');
    const out = withSpecPodFields(template) as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: { readinessGates: { conditionType: string }[]; containers: unknown[] } };
    expect(out.spec.readinessGates).toEqual([{ conditionType: 'InPlaceUpdateReady' }, { conditionType: 'KruisePodReady' }]);
    expect(out.metadata.labels).toEqual({ app: 'app', [STATE]: 'PreparingNormal' });
    expect(out.metadata.annotations).toEqual((template.metadata as { annotations: unknown }).annotations);
    expect(out.spec.containers).toEqual((template.spec as { containers: unknown }).containers);
    // The plain Deployment keeps its template.
    const plain = deployment({ name: 'app', replicas: 1, image: 'img:v1' }) as { spec: { template: { spec: Record<string, unknown> } } };
    expect(plain.spec.template.spec.readinessGates).toBeUndefined();
  });

  it('writes both gate conditions True through /status as soon as the pod exists, unscheduled or not', () => {
    expect(specPodWrites(pod(), none, NOW)).toEqual([
      {
        kind: 'gates',
        subresource: 'status',
        body: { status: { conditions: SPEC_GATES.map((type) => ({ type, status: 'True', reason: null, message: null, lastTransitionTime: NOW })) } },
      },
    ]);
  });

  it('patches the state to Normal once the pod is scheduled, with the lifecycle timestamp', () => {
    expect(specPodWrites(pod({ nodeName: 'n1', gatesTrue: SPEC_GATES }), none, NOW)).toEqual([
      { kind: 'state', subresource: undefined, body: { metadata: { labels: { [STATE]: 'Normal' }, annotations: { 'lifecycle.apps.kruise.io/timestamp': NOW } } } },
    ]);
    expect(specPodWrites(pod({ nodeName: 'n1' }), none, NOW).map((w) => w.kind)).toEqual(['gates', 'state']);
  });

  it('makes each write once per pod, even before the cache shows it, and none on a settled or terminating pod', () => {
    expect(specPodWrites(pod({ nodeName: 'n1' }), new Set<SpecPodWriteKind>(['gates', 'state']), NOW)).toEqual([]);
    expect(specPodWrites(pod({ nodeName: 'n1' }), new Set<SpecPodWriteKind>(['gates']), NOW).map((w) => w.kind)).toEqual(['state']);
    expect(specPodWrites(pod({ nodeName: 'n1', state: 'Normal', gatesTrue: SPEC_GATES }), none, NOW)).toEqual([]);
    // One gate still False: the write sets both, as the CloneSet controller's does.
    expect(specPodWrites(pod({ state: 'Normal', gatesTrue: ['InPlaceUpdateReady'] }), none, NOW).map((w) => w.kind)).toEqual(['gates']);
    expect(specPodWrites(pod({ nodeName: 'n1', deleting: true }), none, NOW)).toEqual([]);
  });
});
