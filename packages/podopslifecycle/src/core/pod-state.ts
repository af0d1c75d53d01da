// Pod-level predicates of the lifecycle: expected finalizers (every finalizer the
// available-conditions annotation names is on the pod), the service-ready gate and condition,
// "ready to operate" (README, PodOpsLifecycle) and the Ready condition.
import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { POL_ANNOTATIONS, POL_PROTECTION_FINALIZER_PREFIX, POL_SERVICE_READY_GATE } from '@cloneset-suite/api-types';

export type Pod = V1Pod;

export type ExpectedFinalizers =
  | { ok: true; finalizers: Record<string, string> }
  | { ok: false; error: string };

/**
 * Parses `pod.kusionstack.io/available-conditions`: JSON `{"expectedFinalizers":{"<key>":"<finalizer>"}}`.
 * No annotation (or no expectedFinalizers) is an empty map.
 */
export function expectedFinalizers(pod: Pod): ExpectedFinalizers {
  const raw = pod.metadata?.annotations?.[POL_ANNOTATIONS.availableConditions];
  if (raw === undefined) return { ok: true, finalizers: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    return { ok: false, error: `not valid JSON (${(err as Error).message})` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, error: 'not a JSON object' };
  const ef = (parsed as Record<string, unknown>).expectedFinalizers;
  if (ef === undefined || ef === null) return { ok: true, finalizers: {} };
  if (typeof ef !== 'object' || Array.isArray(ef)) return { ok: false, error: 'expectedFinalizers is not an object' };
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(ef as Record<string, unknown>)) {
    if (typeof value !== 'string') return { ok: false, error: `expectedFinalizers[${JSON.stringify(key)}] is not a string` };
    out[key] = value;
  }
  return { ok: true, finalizers: out };
}

/** Every expected finalizer is on the pod (a malformed annotation is never satisfied). */
export function expectedFinalizersSatisfied(pod: Pod): boolean {
  const ef = expectedFinalizers(pod);
  if (!ef.ok) return false;
  const present = new Set(pod.metadata?.finalizers ?? []);
  return Object.values(ef.finalizers).every((f) => present.has(f));
}

export function hasServiceReadyGate(pod: Pod): boolean {
  return (pod.spec?.readinessGates ?? []).some((g) => g.conditionType === POL_SERVICE_READY_GATE);
}

export function condition(pod: Pod, type: string): V1PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

export function isPodReady(pod: Pod): boolean {
  return condition(pod, 'Ready')?.status === 'True';
}

export function hasProtectionFinalizer(pod: Pod): boolean {
  return (pod.metadata?.finalizers ?? []).some((f) => f.startsWith(POL_PROTECTION_FINALIZER_PREFIX));
}

/**
 * "Ready to operate": traffic is off (service-ready False) and no cooperation controller
 * still protects the pod. We fix Kuperator's quirk (a pod without the condition is ready even with
 * protection finalizers): a protection finalizer always blocks. A pod with the gate but no
 * condition yet is not ready (package README, Choices: the lifecycle controller sets the
 * condition False first); a pod without the gate
 * never gets the condition, so the condition cannot hold it back.
 */
export function isReadyToOperate(pod: Pod): boolean {
  if (hasProtectionFinalizer(pod)) return false;
  const serviceReady = condition(pod, POL_SERVICE_READY_GATE);
  if (!serviceReady) return !hasServiceReadyGate(pod);
  return serviceReady.status === 'False';
}
