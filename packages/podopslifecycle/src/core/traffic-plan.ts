// The built-in traffic cooperation (package README, The built-in traffic cooperation): expected
// finalizers in the spirit of Kuperator's ResourceConsist, with the EndpointSlices of plain
// Services as the backend: for one controlled pod, whether to hold the
// protection finalizer POL_TRAFFIC_FINALIZER, and which expected-finalizer entries the pod's
// available-conditions annotation should carry. Pure: the shell gathers the Services of the pod's
// namespace and the EndpointSlice endpoints that name the pod.
//
// Traffic on = every Service selecting the pod lists it as ready: the finalizer goes on, which
// satisfies the expected finalizers, so the lifecycle may complete and the pod become
// service-available. Traffic off = no EndpointSlice of a live Service lists it as ready (the
// service-ready condition went False during Preparing, the pod is terminating, or the Service is
// gone): the finalizer comes off, which lets the lifecycle grant `operate`.
import {
  KUSION_CONTROL_LABEL,
  POL_ANNOTATIONS,
  POL_SERVICE_READY_GATE,
  POL_TRAFFIC_FINALIZER,
  POL_TRAFFIC_OPT_OUT_ANNOTATION,
  POL_TRAFFIC_OPT_OUT_VALUE,
  isKusionControlled,
} from '@cloneset-suite/api-types';
import type { PlannedEvent } from './planned-event.ts';
import { condition, expectedFinalizers, hasServiceReadyGate, isPodReady, type Pod } from './pod-state.ts';
import { serviceSelects, type ServiceSelector } from './service-selector.ts';

/** A Service of the pod's namespace, as the cooperation reads it. */
export interface TrafficService {
  name: string;
  selector: ServiceSelector;
  /** Annotated with the opt-out, or `publishNotReadyAddresses` (its endpoints stay ready while the pod is not: readiness says nothing about its traffic). */
  ignored: boolean;
}

/** One endpoint of an EndpointSlice whose targetRef is the pod (by name). */
export interface PodEndpoint {
  /** The Service the slice belongs to (label kubernetes.io/service-name). */
  service: string;
  /** conditions.ready; absent means ready (EndpointSlice API). */
  ready: boolean;
  /** targetRef.uid: an endpoint of an earlier pod of the same name does not count. */
  podUid?: string;
}

export interface TrafficInput {
  pod: Pod;
  services: readonly TrafficService[];
  endpoints: readonly PodEndpoint[];
  nowMs: number;
  /** When the shell first saw the pod draining (see isDraining); for the Event and the metric. */
  drainStartedMs?: number;
}

export interface TrafficWrite {
  finalizer?: 'add' | 'remove';
  /** The new value of the available-conditions annotation. */
  availableConditions?: string;
}

export interface TrafficPlan {
  write?: TrafficWrite;
  events: PlannedEvent[];
  /** Milliseconds between the start of the drain and the finalizer's removal, when known. */
  drainedMs?: number;
  why: string;
}

const hasOptOut = (annotations: Readonly<Record<string, string>> | undefined): boolean =>
  annotations?.[POL_TRAFFIC_OPT_OUT_ANNOTATION] === POL_TRAFFIC_OPT_OUT_VALUE;

/**
 * Whether a Service stays out of the cooperation: opted out; `publishNotReadyAddresses` (readiness
 * does not drive its endpoints); or `type: ExternalName`, which has no endpoints at all (a selector
 * on it is ignored by Kubernetes), so waiting for it to list the pod would wait forever.
 */
export function serviceIgnored(svc: { metadata?: { annotations?: Readonly<Record<string, string>> }; spec?: { publishNotReadyAddresses?: boolean; type?: string } }): boolean {
  return hasOptOut(svc.metadata?.annotations) || svc.spec?.publishNotReadyAddresses === true || svc.spec?.type === 'ExternalName';
}

/**
 * Whether the cooperation looks after the pod at all: controlled, not opted out, and with the
 * service-ready readiness gate. Without the gate (the webhook adds it only when a pod is created
 * controlled) the lifecycle cannot make the pod NotReady, so no EndpointSlice would ever drop it
 * and a finalizer of ours could never be released.
 */
export function podCooperates(pod: Pod): boolean {
  return isKusionControlled(pod.metadata?.labels) && !hasOptOut(pod.metadata?.annotations) && hasServiceReadyGate(pod);
}

/** The Services whose traffic the pod's lifecycle must wait for, by name, sorted. */
export function selectingServices(pod: Pod, services: readonly TrafficService[]): string[] {
  if (!podCooperates(pod)) return [];
  return services.filter((s) => !s.ignored && serviceSelects(s.selector, pod.metadata?.labels)).map((s) => s.name).sort();
}

const employerKey = (namespace: string, service: string): string => `Service/${namespace}/${service}`;

/**
 * The available-conditions annotation with exactly one entry of ours per selecting Service (other
 * cooperation controllers' entries kept), or undefined when it already says that or cannot be read
 * (the validating webhook refuses every write of a pod with a malformed annotation anyway).
 */
export function syncedAvailableConditions(pod: Pod, namespace: string, selecting: readonly string[]): string | undefined {
  const current = expectedFinalizers(pod);
  if (!current.ok) return undefined;
  const others = Object.entries(current.finalizers).filter(([, finalizer]) => finalizer !== POL_TRAFFIC_FINALIZER);
  const ours = selecting.map((s) => [employerKey(namespace, s), POL_TRAFFIC_FINALIZER] as const);
  const wanted = Object.fromEntries([...others, ...ours]);
  const same = Object.keys(wanted).length === Object.keys(current.finalizers).length && Object.entries(wanted).every(([k, v]) => current.finalizers[k] === v);
  if (same) return undefined;
  const raw = pod.metadata?.annotations?.[POL_ANNOTATIONS.availableConditions];
  const rest = raw === undefined ? {} : (JSON.parse(raw) as Record<string, unknown>);
  return JSON.stringify({ ...rest, expectedFinalizers: wanted });
}

const hasFinalizer = (pod: Pod): boolean => (pod.metadata?.finalizers ?? []).includes(POL_TRAFFIC_FINALIZER);

/** The pod holds our finalizer but no longer serves (not Ready, or terminating): its traffic is being drained. */
export function isDraining(pod: Pod): boolean {
  return hasFinalizer(pod) && (!!pod.metadata?.deletionTimestamp || !isPodReady(pod));
}

/** When the drain began, from the pod itself (second precision) when the shell did not see it begin. */
function drainStart(pod: Pod, seenMs: number | undefined): number | undefined {
  if (seenMs !== undefined) return seenMs;
  const times = [pod.metadata?.deletionTimestamp, condition(pod, 'Ready')?.status === 'True' ? undefined : condition(pod, 'Ready')?.lastTransitionTime]
    .map((t) => (t === undefined ? NaN : new Date(t as unknown as string).getTime()))
    .filter((t) => Number.isFinite(t));
  return times.length > 0 ? Math.min(...times) : undefined;
}

const listing = (services: readonly string[]): string => `${services.length === 1 ? 'service' : 'services'} ${services.join(', ')}`;

export function planTraffic(input: TrafficInput): TrafficPlan {
  const { pod, services, endpoints, nowMs } = input;
  const namespace = pod.metadata?.namespace ?? '';
  const uid = pod.metadata?.uid;
  const deleting = !!pod.metadata?.deletionTimestamp;
  const selecting = deleting ? [] : selectingServices(pod, services);
  // Traffic is whatever a live, participating Service's slices say, selector or not (a slice
  // can lag a label change); an opted-out pod is released whatever they say.
  const live = new Set(services.filter((s) => !s.ignored).map((s) => s.name));
  const servingFor = podCooperates(pod) ? [...new Set(endpoints.filter((e) => e.ready && live.has(e.service) && (!e.podUid || !uid || e.podUid === uid)).map((e) => e.service))].sort() : [];

  // A terminating pod's entries stay as they are: it never becomes available again.
  const availableConditions = deleting ? undefined : syncedAvailableConditions(pod, namespace, selecting);
  const held = hasFinalizer(pod);
  const write = (finalizer?: 'add' | 'remove'): TrafficWrite | undefined =>
    finalizer || availableConditions !== undefined ? { finalizer, availableConditions } : undefined;
  const plan = (why: string, finalizer?: 'add' | 'remove', events: PlannedEvent[] = [], drainedMs?: number): TrafficPlan => {
    return { write: write(finalizer), events, drainedMs, why };
  };

  if (held && servingFor.length === 0 && isKusionControlled(pod.metadata?.labels) && !hasOptOut(pod.metadata?.annotations) && !hasServiceReadyGate(pod)) {
    const note = `the pod has no readiness gate ${POL_SERVICE_READY_GATE} (the webhook adds it only when a pod is created with ${KUSION_CONTROL_LABEL}: "true"): its traffic cannot be taken off, so no finalizer is held for it; re-create the pod to get the gate`;
    return plan('no service-ready gate: the finalizer could never be released', 'remove', [{ type: 'Warning', reason: 'NoServiceReadyGate', action: 'RemoveFinalizer', note }]);
  }
  if (held && servingFor.length === 0) {
    const started = drainStart(pod, input.drainStartedMs);
    const drainedMs = started === undefined ? undefined : Math.max(0, nowMs - started);
    const from = selecting.length > 0 ? selecting : Object.keys(ownEntries(pod)).map((k) => k.split('/')[2] ?? k);
    const note = `traffic off: removed from EndpointSlices of ${from.length > 0 ? listing(from) : 'its Services'}${drainedMs === undefined ? '' : ` after ${drainedMs} ms`}`;
    return plan('no EndpointSlice lists the pod as ready: traffic is off', 'remove', [{ type: 'Normal', reason: 'TrafficOff', action: 'RemoveFinalizer', note }], drainedMs);
  }
  if (!held && selecting.length > 0 && isPodReady(pod)) {
    const missing = selecting.filter((s) => !servingFor.includes(s));
    if (missing.length === 0) {
      const note = `traffic on: listed as ready in EndpointSlices of ${listing(selecting)}`;
      return plan('every selecting Service lists the pod as ready: traffic is on', 'add', [{ type: 'Normal', reason: 'TrafficOn', action: 'AddFinalizer', note }]);
    }
    return plan(`Ready, waiting for EndpointSlices of ${listing(missing)} to list the pod as ready`);
  }
  if (availableConditions !== undefined) return plan(`expected finalizers follow the selecting Services: ${selecting.join(', ') || 'none'}`);
  return plan(held ? `listed as ready by ${listing(servingFor)}` : selecting.length === 0 ? 'no Service selects the pod' : 'not Ready');
}

/** Our own expected-finalizer entries on the pod. */
function ownEntries(pod: Pod): Record<string, string> {
  const ef = expectedFinalizers(pod);
  return ef.ok ? Object.fromEntries(Object.entries(ef.finalizers).filter(([, f]) => f === POL_TRAFFIC_FINALIZER)) : {};
}
