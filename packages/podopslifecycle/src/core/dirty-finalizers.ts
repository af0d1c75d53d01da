// "Dirty" expected finalizers (as Kuperator's lifecycle controller finds them): an available-conditions entry keyed
// `Service/<namespace>/<name>` whose Service is gone or no longer selects the pod. Its employer
// will never add the finalizer, so the entry would keep the pod from service-available forever.
import { POL_ANNOTATIONS } from '@cloneset-suite/api-types';
import { expectedFinalizers, type Pod } from './pod-state.ts';
import { serviceSelects } from './service-selector.ts';

/**
 * A Service's `spec.selector`: undefined when the Service does not exist, null when it has no
 * selector (it then selects no pod).
 */
export type ServiceSelectorLookup = (namespace: string, name: string) => Readonly<Record<string, string>> | null | undefined;

/** The keys of the dirty entries (other kinds of keys are never dirty). */
export function dirtyExpectedFinalizerKeys(pod: Pod, serviceSelector: ServiceSelectorLookup): string[] {
  const ef = expectedFinalizers(pod);
  if (!ef.ok) return [];
  const labels = pod.metadata?.labels ?? {};
  return Object.keys(ef.finalizers).filter((key) => {
    const parts = key.split('/');
    if (parts.length !== 3 || parts[0] !== 'Service') return false;
    const selector = serviceSelector(parts[1]!, parts[2]!);
    return selector === undefined || !serviceSelects(selector, labels);
  });
}

/** The available-conditions annotation without `keys` (the rest of the JSON kept as it was). */
export function availableConditionsWithout(pod: Pod, keys: readonly string[]): string {
  const raw = pod.metadata?.annotations?.[POL_ANNOTATIONS.availableConditions] ?? '{}';
  const parsed = JSON.parse(raw) as { expectedFinalizers?: Record<string, string> };
  const kept = Object.fromEntries(Object.entries(parsed.expectedFinalizers ?? {}).filter(([k]) => !keys.includes(k)));
  return JSON.stringify({ ...parsed, expectedFinalizers: kept });
}
