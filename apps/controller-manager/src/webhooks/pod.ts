// The PodOpsLifecycle pod webhooks (README, PodOpsLifecycle): the pure functions of
// @cloneset-suite/podopslifecycle behind /mutate-pod and /validate-pod. They sit on every write
// of a controlled pod, status writes included, so they make no API call.
import { KUSION_CONTROL_LABEL, KUSION_CONTROL_VALUE, isKusionControlled, nanoTimestamp } from '@cloneset-suite/api-types';
import { mutatePod, requestViolations, validatePod, violationMessage, type LifecycleViolation, type Pod } from '@cloneset-suite/podopslifecycle';
import { allowed, objectName, type AdmissionRequest, type AdmissionResponse } from './admission-review.ts';
import { createJsonPatch } from './json-patch.ts';
import type { AdmissionWebhook, LabelSelectorSpec, RuleWithOperations, WebhookDeps } from './types.ts';

const rules: RuleWithOperations[] = [
  { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods', 'pods/status'], scope: 'Namespaced' },
];

/** Only controlled pods reach the webhooks: no other pod in the cluster ever waits on us. */
const objectSelector: LabelSelectorSpec = { matchLabels: { [KUSION_CONTROL_LABEL]: KUSION_CONTROL_VALUE } };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The new and old pod when the request concerns a controlled pod's CREATE/UPDATE; else undefined. */
function podsOf(request: AdmissionRequest): { pod: Pod; old: Pod | undefined; operation: 'CREATE' | 'UPDATE' } | undefined {
  if (request.dryRun || (request.operation !== 'CREATE' && request.operation !== 'UPDATE')) return undefined;
  if (!isObject(request.object)) return undefined;
  const pod = request.object as Pod;
  if (!isKusionControlled(pod.metadata?.labels)) return undefined;
  const old = request.operation === 'UPDATE' && isObject(request.oldObject) ? (request.oldObject as Pod) : undefined;
  return { pod, old, operation: request.operation };
}

/**
 * A refusal: 422 with a cause per label; each cause carries Kuperator's denial message too,
 * since kubectl prints the causes instead of the message when there are any.
 */
function refused(request: AdmissionRequest, pod: Pod, violations: readonly LifecycleViolation[]): AdmissionResponse {
  return {
    allowed: false,
    status: {
      code: 422,
      reason: 'Invalid',
      message: violationMessage(violations),
      details: {
        name: objectName(request, pod),
        group: '',
        kind: 'Pod',
        causes: violations.map((v) => ({ reason: 'FieldValueInvalid', message: violationMessage([v]), field: v.field })),
      },
    },
  };
}

export function podOpsLifecycleMutator(deps: WebhookDeps): AdmissionWebhook {
  return {
    name: 'mpodopslifecycle.kb.io',
    type: 'mutating',
    path: '/mutate-pod',
    rules,
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    objectSelector,
    handle(request) {
      const target = podsOf(request);
      if (!target) return Promise.resolve(allowed());
      // What the write asks for, before the labels move on (an undo is consumed in this write).
      const asked = requestViolations(target.pod);
      if (asked.length > 0) return Promise.resolve(refused(request, target.pod, asked));
      const namespace = request.namespace ?? target.pod.metadata?.namespace ?? '';
      // The Services are read only for a create: the one write that takes the traffic entries.
      const traffic = target.operation === 'CREATE' && deps.trafficServices ? { namespace, services: deps.trafficServices(namespace) } : undefined;
      return Promise.resolve(allowed(createJsonPatch(target.pod, mutatePod(target.old, target.pod, target.operation, nanoTimestamp(), traffic))));
    },
  };
}

export function podOpsLifecycleValidator(_deps: WebhookDeps): AdmissionWebhook {
  return {
    name: 'vpodopslifecycle.kb.io',
    type: 'validating',
    path: '/validate-pod',
    rules,
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    objectSelector,
    handle(request): Promise<AdmissionResponse> {
      const target = podsOf(request);
      if (!target) return Promise.resolve(allowed());
      const violations = validatePod(target.pod);
      return Promise.resolve(violations.length === 0 ? allowed() : refused(request, target.pod, violations));
    },
  };
}
