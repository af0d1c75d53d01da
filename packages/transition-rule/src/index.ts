// Public face of @cloneset-suite/transition-rule: what other packages use. The controller and the
// StageGate it answers (the manager plugs it into the lifecycle controller), the webhook client the
// manager wraps with metrics, and the outbound-call policy admission checks webhook URLs against.
export { createTransitionRuleController, TRANSITION_RULE_CONTROLLER_NAME } from './reconciler/controller.ts';
export { createTransitionRuleStageGate } from './reconciler/stage-gate.ts';
export { WebhookClient, DEFAULT_WEBHOOK_TIMEOUT_MS, type WebhookCaller } from './http/webhook-client.ts';
export { literalAddress, parseAllowedOrigin, urlAllowed } from './core/outbound-policy.ts';
export { ADDRESS_CLASSES, PRIVATE_RANGES, addressPolicy, addressRefusal, type AddressPolicy } from './core/address-policy.ts';
