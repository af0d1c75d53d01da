// Public face of @cloneset-suite/transition-rule: the pure engine, the webhook client, the
// controller and the StageGate it answers.
export type { LifecycleStage, PodView, RuleOutcome } from './core/types.ts';
export { podStage, stageEnteredAt } from './core/stage.ts';
export { effectiveRules, ruleKind, ruleStage, type RuleKind } from './core/rules.ts';
export { evaluateAvailablePolicy, maxUnavailableQuota, minAvailableQuota, type AvailablePolicyInput } from './core/available-policy.ts';
export { evaluateLabelCheck } from './core/label-check.ts';
export { buildParameters, fieldValue } from './core/parameters.ts';
export { parsePollResponse, parseWebhookResponse, type PollResponse, type WebhookRequestBody, type WebhookResponse } from './core/protocol.ts';
export { evaluateWebhookRule, WEBHOOK_FAILURE_IGNORED_REASON, type WebhookRuleInput, type WebhookRuleResult } from './core/webhook-rule.ts';
export type { PollSnapshot, PostOutcome, WebhookAction, WebhookRuleRuntime } from './core/webhook-runtime.ts';
export { processStage, type StageInput, type StageResult } from './core/stage-processor.ts';
export { planRound, type RoundInput, type RoundPlan } from './core/round.ts';
export { detailAnnotationValue, planAnnotations, statusChanged } from './core/results.ts';
export { checkStage, podsWithChangedDecision } from './core/checker.ts';
export { WebhookClient, WebhookCallError, DEFAULT_WEBHOOK_TIMEOUT_MS, type WebhookCall, type WebhookCaller, type WebhookClientOptions } from './http/webhook-client.ts';
export { isLinkLocalAddress, literalAddress, parseAllowedOrigin, urlAllowed, type AllowedOrigin } from './core/outbound-policy.ts';
export { createTransitionRuleController, TRANSITION_RULE_CONTROLLER_NAME, type TransitionRuleControllerOptions } from './reconciler/controller.ts';
export { createTransitionRuleStageGate, stageGateFromInformer, type StageGate, type StageDecision } from './reconciler/stage-gate.ts';
