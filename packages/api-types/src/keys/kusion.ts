// KusionStack scope: only pods carrying this label with exactly this value take part in
// PodOpsLifecycle (README, PodOpsLifecycle).

export const KUSION_CONTROL_LABEL = 'kusionstack.io/control';
export const KUSION_CONTROL_VALUE = 'true';

/** True when the pod's labels opt it into PodOpsLifecycle. */
export function isKusionControlled(labels: Readonly<Record<string, string>> | undefined): boolean {
  return labels?.[KUSION_CONTROL_LABEL] === KUSION_CONTROL_VALUE;
}
