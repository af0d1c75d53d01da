// Every admission webhook the server serves. Adding one is one line here: the server routes it,
// and the webhook configurations (URL mode, deploy/) are built from this list.
import { cloneSetDefaulter, cloneSetScaleValidator, cloneSetValidator } from './cloneset.ts';
import { podOpsLifecycleMutator, podOpsLifecycleValidator } from './pod.ts';
import { podTransitionRuleDefaulter, podTransitionRuleValidator } from './podtransitionrule.ts';
import type { AdmissionWebhook, WebhookDeps } from './types.ts';

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
