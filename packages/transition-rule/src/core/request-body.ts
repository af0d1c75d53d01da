// The POST body of a webhook rule, bounded (the controller is shared by every tenant, and a rule
// may render whole label or annotation maps of each pod): at most PTR_MAX_WEBHOOK_PARAMETERS
// parameters, each rendered value at most PTR_MAX_PARAMETER_VALUE_BYTES, at most
// MAX_PODS_PER_CALL pods per call and at most MAX_REQUEST_BODY_BYTES serialized (as answers
// are). Pods past the pod or byte cap wait for the next call; a parameter or pod past its bound
// makes the whole request a RequestBoundError (the rule fails, nothing is sent).
import { PTR_MAX_PARAMETER_VALUE_BYTES, PTR_MAX_WEBHOOK_PARAMETERS, type Parameter } from '@cloneset-suite/api-types';
import { buildParameters } from './parameters.ts';
import type { WebhookRequestBody, WebhookResource } from './protocol.ts';
import { utf8Bytes } from './reason-text.ts';
import { podName } from './stage.ts';
import type { PodView } from './types.ts';

export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;
export const MAX_PODS_PER_CALL = 100;

export class RequestBoundError extends Error {
  override name = 'RequestBoundError';
}

export interface RequestBodyInput {
  traceId: string;
  stage: string;
  ruleName: string;
  pods: readonly PodView[];
  parameters: readonly Parameter[] | undefined;
  maxPods?: number;
  maxBytes?: number;
}

export interface BuiltRequest {
  body: WebhookRequestBody;
  /** Pods left for a later call (over the pod or byte cap), in the order given. */
  deferred: PodView[];
  /** Bytes of JSON.stringify(body). */
  bytes: number;
}

/** Throws RequestBoundError past a bound, and ParameterError for a parameter with nothing to send. */
export function buildRequestBody(input: RequestBodyInput): BuiltRequest {
  const maxPods = input.maxPods ?? MAX_PODS_PER_CALL;
  const maxBytes = input.maxBytes ?? MAX_REQUEST_BODY_BYTES;
  const count = input.parameters?.length ?? 0;
  if (count > PTR_MAX_WEBHOOK_PARAMETERS) throw new RequestBoundError(`the rule has ${count} parameters, at most ${PTR_MAX_WEBHOOK_PARAMETERS} are sent`);
  const resources: WebhookResource[] = [];
  // `{"traceId":…,"resources":[]}`, then each resource and the comma before all but the first.
  let bytes = utf8Bytes(JSON.stringify({ traceId: input.traceId, stage: input.stage, ruleName: input.ruleName, resources: [] }));
  for (const pod of input.pods) {
    if (resources.length >= maxPods) break;
    const name = podName(pod);
    const parameters = buildParameters(pod, input.parameters);
    for (const [key, value] of Object.entries(parameters)) {
      const size = utf8Bytes(value);
      if (size > PTR_MAX_PARAMETER_VALUE_BYTES) throw new RequestBoundError(`parameter ${key} of pod ${name} renders to ${size} bytes, more than ${PTR_MAX_PARAMETER_VALUE_BYTES}`);
    }
    const resource: WebhookResource = { apiVersion: 'v1', kind: 'Pod', name, ...(Object.keys(parameters).length > 0 ? { parameters } : {}) };
    const size = utf8Bytes(JSON.stringify(resource)) + (resources.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      if (resources.length === 0) throw new RequestBoundError(`pod ${name} alone makes a request of ${bytes + size} bytes, more than ${maxBytes}`);
      break;
    }
    resources.push(resource);
    bytes += size;
  }
  return {
    body: { traceId: input.traceId, stage: input.stage, ruleName: input.ruleName, resources },
    deferred: input.pods.slice(resources.length),
    bytes,
  };
}
