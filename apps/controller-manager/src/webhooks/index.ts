// Every admission and conversion webhook the server serves. Adding one is one line here: the
// server routes it, and the webhook configurations (URL mode, deploy/) are built from this list.
import { cloneSetConversion } from './cloneset-conversion.ts';
import { cloneSetDefaulter, cloneSetScaleValidator, cloneSetValidator } from './cloneset.ts';
import { podOpsLifecycleMutator, podOpsLifecycleValidator } from './pod.ts';
import { podTransitionRuleDefaulter, podTransitionRuleValidator } from './podtransitionrule.ts';
import type { AdmissionWebhook, ConversionWebhook, WebhookDeps } from './types.ts';

export function admissionWebhooks(deps: WebhookDeps): AdmissionWebhook[] {
  return [
    cloneSetDefaulter(deps),
    cloneSetValidator(deps),
    cloneSetScaleValidator(deps),
    podTransitionRuleDefaulter(deps),
    podTransitionRuleValidator(deps),
    podOpsLifecycleMutator(deps),
    podOpsLifecycleValidator(deps),
  ];
}

/** The CRD conversion webhooks: their CRDs' conversion stanzas point at them (certs/crd-conversion.ts). */
export function conversionWebhooks(): ConversionWebhook[] {
  return [cloneSetConversion()];
}
