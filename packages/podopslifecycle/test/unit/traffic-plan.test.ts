// Table tests and invariants of the built-in traffic cooperation's planner: the finalizer follows
// what the EndpointSlices of live Services say, the expected-finalizer entries follow the
// selecting Services, and a settled pod costs no write.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POL_TRAFFIC_FINALIZER as FIN, POL_TRAFFIC_OPT_OUT_ANNOTATION as OPT_OUT } from '@cloneset-suite/api-types';
import { planTraffic, syncedAvailableConditions, type PodEndpoint, type TrafficService } from '../../src/core/traffic-plan.ts';
import { isDraining, selectingServices, serviceIgnored } from '../../src/core/traffic-plan.ts';
import { PROT, pod, type PodSpecShort } from './fixtures.ts';

const AC = 'pod.kusionstack.io/available-conditions';
const entries = (e: Record<string, string>) => ({ [AC]: JSON.stringify({ expectedFinalizers: e }) });
const ours = { 'Service/ns/web': FIN };
const web: TrafficService = { name: 'web', selector: { app: 'web' }, ignored: false };
const api: TrafficService = { name: 'api', selector: { app: 'web' }, ignored: false };
const other: TrafficService = { name: 'other', selector: { app: 'other' }, ignored: false };
const ready = (service: string, isReady = true): PodEndpoint => ({ service, ready: isReady });
const webPod = (s: PodSpecShort = {}) => {
  const p = pod({ ...s, labels: { app: 'web', ...(s.labels ?? {}) } });
  p.metadata!.uid = 'uid-1';
  return p;
};

describe('planTraffic', () => {
  it.each<{ name: string; pod: PodSpecShort; services: TrafficService[]; endpoints: PodEndpoint[]; finalizer?: 'add' | 'remove'; annotation?: Record<string, string>; reason?: string }>([
    { name: 'settled: Ready, listed, holding, entries in place: no write', pod: { ready: true, finalizers: [FIN], annotations: entries(ours) }, services: [web], endpoints: [ready('web')] },
    { name: 'new pod: entry first, no finalizer before it is listed', pod: { ready: true }, services: [web], endpoints: [], annotation: ours },
    { name: 'Ready and listed as ready: traffic on', pod: { ready: true, annotations: entries(ours) }, services: [web], endpoints: [ready('web')], finalizer: 'add', reason: 'TrafficOn' },
    { name: 'listed but not Ready yet: wait', pod: { ready: false, annotations: entries(ours) }, services: [web], endpoints: [ready('web')] },
    { name: 'listed by one of two selecting Services: wait for both', pod: { ready: true, annotations: entries({ 'Service/ns/api': FIN, ...ours }) }, services: [web, api], endpoints: [ready('web')] },
    { name: 'listed by both: traffic on', pod: { ready: true, annotations: entries({ 'Service/ns/api': FIN, ...ours }) }, services: [web, api], endpoints: [ready('web'), ready('api')], finalizer: 'add', reason: 'TrafficOn' },
    { name: 'listed as not ready everywhere: traffic off', pod: { ready: false, finalizers: [FIN], annotations: entries(ours) }, services: [web], endpoints: [ready('web', false)], finalizer: 'remove', reason: 'TrafficOff' },
    { name: 'not Ready but still listed as ready: keep holding', pod: { ready: false, finalizers: [FIN], annotations: entries(ours) }, services: [web], endpoints: [ready('web')] },
    { name: 'still ready in one Service of two: keep holding', pod: { ready: false, finalizers: [FIN] }, services: [web, api], endpoints: [ready('web', false), ready('api')], annotation: { 'Service/ns/api': FIN, ...ours } },
    { name: 'no Service selects the pod: no entry, no finalizer', pod: { ready: true }, services: [other], endpoints: [] },
    { name: 'Service gone while holding: released at once, entry dropped', pod: { ready: true, finalizers: [FIN], annotations: entries(ours) }, services: [], endpoints: [ready('web')], finalizer: 'remove', annotation: {}, reason: 'TrafficOff' },
    { name: 'opted-out Service: as if absent', pod: { ready: true, finalizers: [FIN], annotations: entries(ours) }, services: [{ ...web, ignored: true }], endpoints: [ready('web')], finalizer: 'remove', annotation: {}, reason: 'TrafficOff' },
    { name: 'opted-out pod: released, entries dropped', pod: { ready: true, finalizers: [FIN], annotations: { ...entries(ours), [OPT_OUT]: 'disabled' } }, services: [web], endpoints: [ready('web')], finalizer: 'remove', annotation: {}, reason: 'TrafficOff' },
    { name: 'terminating and no longer ready: released, entries untouched', pod: { deleting: true, finalizers: [FIN], annotations: entries(ours) }, services: [web], endpoints: [ready('web', false)], finalizer: 'remove', reason: 'TrafficOff' },
    { name: 'terminating without our finalizer: nothing to do', pod: { deleting: true, ready: true, annotations: entries(ours) }, services: [web], endpoints: [ready('web')] },
    { name: "other controllers' entries are kept", pod: { ready: true, annotations: entries({ 'Slb/ns/x': PROT }) }, services: [web], endpoints: [], annotation: { 'Slb/ns/x': PROT, ...ours } },
    { name: 'pod without the service-ready gate (control label added after creation): no entry, no finalizer', pod: { ready: true, gate: false }, services: [web], endpoints: [ready('web')] },
    {
      name: 'pod without the gate holding our finalizer: released at once, entries dropped, a Warning says why',
      pod: { ready: true, gate: false, finalizers: [FIN], annotations: entries(ours) },
      services: [web],
      endpoints: [ready('web')],
      finalizer: 'remove',
      annotation: {},
      reason: 'NoServiceReadyGate',
    },
    { name: 'Service stopped selecting: entry dropped, finalizer kept while its slice still lists the pod', pod: { ready: true, finalizers: [FIN], annotations: entries(ours) }, services: [{ ...web, selector: { app: 'x' } }], endpoints: [ready('web')], annotation: {} },
  ])('$name', ({ pod: spec, services, endpoints, finalizer, annotation, reason }) => {
    const plan = planTraffic({ pod: webPod(spec), services, endpoints, nowMs: 5_000 });
    expect(plan.write?.finalizer).toBe(finalizer);
    expect(plan.write?.availableConditions === undefined ? undefined : JSON.parse(plan.write.availableConditions).expectedFinalizers).toEqual(annotation);
    expect(plan.events.map((e) => e.reason)).toEqual(reason ? [reason] : []);
  });

  it.each<[string, Parameters<typeof serviceIgnored>[0], boolean]>([
    ['a ClusterIP Service', { spec: { type: 'ClusterIP' } }, false],
    ['an ExternalName Service, even with a selector (it has no endpoints)', { spec: { type: 'ExternalName' } }, true],
    ['publishNotReadyAddresses', { spec: { publishNotReadyAddresses: true } }, true],
    ['the opt-out annotation', { metadata: { annotations: { [OPT_OUT]: 'disabled' } } }, true],
  ])('serviceIgnored: %s -> %s', (_name, svc, ignored) => {
    expect(serviceIgnored(svc)).toBe(ignored);
  });

  it('an endpoint of an earlier pod with the same name does not count', () => {
    const plan = planTraffic({ pod: webPod({ ready: true, annotations: entries(ours) }), services: [web], endpoints: [{ service: 'web', ready: true, podUid: 'uid-0' }], nowMs: 0 });
    expect(plan.write).toBeUndefined();
  });

  it('says how long the drain took, from when the shell saw it begin', () => {
    const plan = planTraffic({ pod: webPod({ finalizers: [FIN], annotations: entries(ours) }), services: [web], endpoints: [], nowMs: 5_250, drainStartedMs: 4_000 });
    expect(plan.drainedMs).toBe(1_250);
    expect(plan.events[0]?.note).toBe('traffic off: removed from EndpointSlices of service web after 1250 ms');
  });

  it('falls back to the Ready condition going False when the shell did not see the drain begin', () => {
    const p = webPod({ finalizers: [FIN], annotations: entries(ours) });
    p.status!.conditions![0]!.lastTransitionTime = new Date(3_000);
    expect(planTraffic({ pod: p, services: [web], endpoints: [], nowMs: 5_000 }).drainedMs).toBe(2_000);
  });

  it('isDraining: holding the finalizer while not Ready or terminating', () => {
    expect(isDraining(webPod({ ready: true, finalizers: [FIN] }))).toBe(false);
    expect(isDraining(webPod({ ready: false, finalizers: [FIN] }))).toBe(true);
    expect(isDraining(webPod({ ready: true, deleting: true, finalizers: [FIN] }))).toBe(true);
    expect(isDraining(webPod({ ready: false }))).toBe(false);
  });

  it('selectingServices: only controlled pods, only non-empty selectors that match', () => {
    expect(selectingServices(webPod(), [web, other, { name: 'all', selector: {}, ignored: false }, { name: 'none', selector: null, ignored: false }])).toEqual(['web']);
    const uncontrolled = webPod();
    delete uncontrolled.metadata!.labels!['kusionstack.io/control'];
    expect(selectingServices(uncontrolled, [web])).toEqual([]);
  });

  it('syncedAvailableConditions keeps unknown top-level fields and leaves a malformed annotation alone', () => {
    const p = webPod({ annotations: { [AC]: JSON.stringify({ expectedFinalizers: {}, note: 'x' }) } });
    expect(JSON.parse(syncedAvailableConditions(p, 'ns', ['web'])!)).toEqual({ expectedFinalizers: ours, note: 'x' });
    expect(syncedAvailableConditions(webPod({ annotations: { [AC]: '{' } }), 'ns', ['web'])).toBeUndefined();
  });
});

describe('planTraffic invariants (fast-check)', () => {
  const names = ['web', 'api', 'other'] as const;
  const arbService = fc.record({ name: fc.constantFrom(...names), selector: fc.constantFrom({ app: 'web' }, { app: 'other' }, null), ignored: fc.boolean() });
  const arbEndpoint = fc.record({ service: fc.constantFrom(...names), ready: fc.boolean(), podUid: fc.constantFrom(undefined, 'uid-1', 'uid-0') });
  const arbPod = fc.record({ ready: fc.boolean(), holding: fc.boolean(), deleting: fc.boolean(), optOut: fc.boolean(), controlled: fc.boolean(), listedEntry: fc.boolean() });
  const input = fc.record({
    services: fc.uniqueArray(arbService, { selector: (s) => s.name, maxLength: 3 }),
    endpoints: fc.array(arbEndpoint, { maxLength: 4 }),
    p: arbPod,
  });
  const build = (p: { ready: boolean; holding: boolean; deleting: boolean; optOut: boolean; controlled: boolean; listedEntry: boolean }) => {
    const built = webPod({ ready: p.ready, deleting: p.deleting, ...(p.holding ? { finalizers: [FIN] } : {}), annotations: { ...(p.listedEntry ? entries(ours) : {}), ...(p.optOut ? { [OPT_OUT]: 'disabled' } : {}) } });
    if (!p.controlled) delete built.metadata!.labels!['kusionstack.io/control'];
    return built;
  };
  const servedBy = (services: TrafficService[], endpoints: PodEndpoint[]) =>
    endpoints.filter((e) => e.ready && (e.podUid ?? 'uid-1') === 'uid-1' && services.some((s) => s.name === e.service && !s.ignored));

  it('never drops the finalizer of a cooperating pod while a live Service lists it as ready', () => {
    fc.assert(fc.property(input, ({ services, endpoints, p }) => {
      const plan = planTraffic({ pod: build(p), services, endpoints, nowMs: 1 });
      const cooperating = p.controlled && !p.optOut;
      if (plan.write?.finalizer === 'remove' && cooperating) expect(servedBy(services, endpoints)).toEqual([]);
    }));
  });

  it('adds the finalizer only to a Ready, live pod listed as ready by every selecting Service', () => {
    fc.assert(fc.property(input, ({ services, endpoints, p }) => {
      const plan = planTraffic({ pod: build(p), services, endpoints, nowMs: 1 });
      if (plan.write?.finalizer !== 'add') return;
      expect(p.ready && !p.deleting && !p.holding && p.controlled && !p.optOut).toBe(true);
      const selecting = services.filter((s) => !s.ignored && s.selector?.app === 'web').map((s) => s.name);
      expect(selecting.length).toBeGreaterThan(0);
      for (const s of selecting) expect(servedBy(services, endpoints).some((e) => e.service === s)).toBe(true);
    }));
  });

  it('converges: applying its write leaves nothing more to do for the same observation', () => {
    fc.assert(fc.property(input, ({ services, endpoints, p }) => {
      const current = build(p);
      const first = planTraffic({ pod: current, services, endpoints, nowMs: 1 });
      if (!first.write) return;
      const next = structuredClone(current);
      const finalizers = next.metadata!.finalizers ?? [];
      if (first.write.finalizer === 'add') next.metadata!.finalizers = [...finalizers, FIN];
      if (first.write.finalizer === 'remove') next.metadata!.finalizers = finalizers.filter((f) => f !== FIN);
      if (first.write.availableConditions !== undefined) next.metadata!.annotations = { ...next.metadata!.annotations, [AC]: first.write.availableConditions };
      const second = planTraffic({ pod: next, services, endpoints, nowMs: 1 });
      expect(second.write).toBeUndefined();
    }));
  });
});
