// PodTransitionRule (apps.kusionstack.io/v1alpha1): schema, TypeScript types and identity.
import type { Static } from 'typebox';
import { labelSelectorSchema, LabelSelectorSchema, resourceSchema, type GroupVersionKind } from '../meta.ts';
import { Type, bool, int64, intOrString, list, preserved, str, stringEnum } from '../schema-kit.ts';

export const PODTRANSITIONRULE_GVK = {
  group: 'apps.kusionstack.io',
  version: 'v1alpha1',
  kind: 'PodTransitionRule',
  listKind: 'PodTransitionRuleList',
  plural: 'podtransitionrules',
  singular: 'podtransitionrule',
  shortNames: ['ptr'],
  apiVersion: 'apps.kusionstack.io/v1alpha1',
} as const satisfies GroupVersionKind;

/** The stages PodOpsLifecycle registers; a rule with any other stage never applies. */
export const TRANSITION_RULE_STAGES = ['PreCheck', 'PostCheck'] as const;
export type TransitionRuleStage = (typeof TRANSITION_RULE_STAGES)[number];

export const WEBHOOK_FAILURE_POLICIES = ['Ignore', 'Fail'] as const;
export type WebhookFailurePolicy = (typeof WEBHOOK_FAILURE_POLICIES)[number];

/** `"<int>%"` with a non-zero value: 0 and "0%" are refused for maxUnavailableValue (the suite refuses them at admission; Kuperator accepts 0). */
export const NON_ZERO_PERCENT_PATTERN = '^0*[1-9][0-9]*%$';
export const PERCENT_PATTERN = '^[0-9]+%$';

export const AvailablePolicySchema = Type.Object(
  {
    maxUnavailableValue: Type.Optional(
      intOrString({
        description: 'Most selected pods that may be unavailable: int (>= 1) or percent (rounded down, at least 1).',
        minimum: 1,
        pattern: NON_ZERO_PERCENT_PATTERN,
      }),
    ),
    minAvailableValue: Type.Optional(
      intOrString({
        description: 'Fewest selected pods that must stay available: int or percent (rounded up).',
        minimum: 0,
        pattern: PERCENT_PATTERN,
      }),
    ),
    // Present in the API, unused by the controller: kept as given.
    maxUnavailablePolicy: Type.Optional(preserved<Record<string, unknown>>({ description: 'Unused.' })),
    minAvailablePolicy: Type.Optional(preserved<Record<string, unknown>>({ description: 'Unused.' })),
  },
  {
    description: 'Approve pods while enough of the selected pods stay available.',
    'x-kubernetes-validations': [
      {
        rule: 'has(self.maxUnavailableValue) || has(self.minAvailableValue)',
        message: 'one of maxUnavailableValue or minAvailableValue is required',
        reason: 'FieldValueRequired',
      },
    ],
  },
);
export type AvailablePolicy = Static<typeof AvailablePolicySchema>;

export const LabelCheckRuleSchema = Type.Object(
  { requires: LabelSelectorSchema },
  { description: 'Approve pods whose labels match requires.' },
);
export type LabelCheckRule = Static<typeof LabelCheckRuleSchema>;

/** An absolute http(s) URL with a host (a regex, not CEL: no cost budget to fit under lists). */
export const HTTP_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+([/?#]\\S*)?$';
export const URL_MAX_LENGTH = 2048;

/**
 * Longest poll task (24 h): its pods wait that long at most, and the controller keeps the task in
 * memory until then; past it the task stops and its pods are asked again.
 */
export const PTR_MAX_POLL_TIMEOUT_SECONDS = 24 * 3600;
/**
 * Bounds of what a rule makes the controller send and keep (the controller is shared by every
 * tenant): parameters per webhook rule, the bytes of one parameter's value (as written, and as
 * rendered from the pod when the request is built), and the bytes of a decoded caBundle (a
 * handful of roots; the whole public web PKI is about 220 KiB).
 */
export const PTR_MAX_WEBHOOK_PARAMETERS = 32;
export const PTR_MAX_PARAMETER_VALUE_BYTES = 16 * 1024;
export const PTR_MAX_CA_BUNDLE_BYTES = 64 * 1024;

export const PollConfigSchema = Type.Object(
  {
    url: str({ description: 'GET endpoint for task results.', maxLength: URL_MAX_LENGTH, pattern: HTTP_URL_PATTERN }),
    rawQueryKey: Type.Optional(str({ description: 'Query key carrying the task id (default task-id).' })),
    caBundle: Type.Optional(str({ description: 'Base64 PEM roots trusted for the poll server.', format: 'byte' })),
    intervalSeconds: Type.Optional(int64({ description: 'Seconds between polls (default 5).', minimum: 1 })),
    timeoutSeconds: Type.Optional(int64({ description: 'Seconds before a task is stopped (default 60, at most 86400).', minimum: 1, maximum: PTR_MAX_POLL_TIMEOUT_SECONDS })),
  },
  { description: 'Polling of long-running webhook tasks.' },
);
export type PollConfig = Static<typeof PollConfigSchema>;

export const ClientConfigSchema = Type.Object(
  {
    url: str({ description: 'POST endpoint asked to approve pods.', maxLength: URL_MAX_LENGTH, pattern: HTTP_URL_PATTERN }),
    caBundle: Type.Optional(str({ description: 'Base64 PEM roots trusted for the server; empty or Cg== means none.', format: 'byte' })),
    poll: Type.Optional(PollConfigSchema),
  },
  { description: 'Where and how to call the webhook.' },
);
export type ClientConfig = Static<typeof ClientConfigSchema>;

export const ParameterSchema = Type.Object({
  key: str({ minLength: 1 }),
  value: Type.Optional(str()),
  valueFrom: Type.Optional(
    Type.Object({
      type: Type.Optional(str()),
      fieldRef: Type.Optional(
        Type.Object({
          apiVersion: Type.Optional(str()),
          fieldPath: str({ description: 'Path in the pod, e.g. metadata.name or status.podIP.' }),
        }),
      ),
    }),
  ),
});
export type Parameter = Static<typeof ParameterSchema>;

export const WebhookRuleSchema = Type.Object(
  {
    clientConfig: ClientConfigSchema,
    failurePolicy: Type.Optional(stringEnum(WEBHOOK_FAILURE_POLICIES, { description: 'Fail (default): errors reject the pods; Ignore: errors let them pass.' })),
    parameters: Type.Optional(list(ParameterSchema, { description: 'Per-pod parameters sent to the webhook.' })),
  },
  { description: 'Ask an HTTP endpoint to approve pods.' },
);
export type WebhookRule = Static<typeof WebhookRuleSchema>;

export const TransitionRuleSchema = Type.Object(
  {
    name: str({ description: 'Rule name, unique within the PodTransitionRule.', minLength: 1 }),
    stage: Type.Optional(str({ description: 'PreCheck (default) or PostCheck.' })),
    disabled: Type.Optional(bool()),
    conditions: Type.Optional(list(str())),
    filter: Type.Optional(
      Type.Object(
        { labelSelector: Type.Optional(LabelSelectorSchema) },
        { description: 'Only in-stage pods matching this selector are subject to the rule.' },
      ),
    ),
    availablePolicy: Type.Optional(AvailablePolicySchema),
    labelCheck: Type.Optional(LabelCheckRuleSchema),
    webhook: Type.Optional(WebhookRuleSchema),
  },
  { description: 'One check a selected pod must pass to leave a stage.' },
);
export type TransitionRule = Static<typeof TransitionRuleSchema>;

export const PodTransitionRuleSpecSchema = Type.Object(
  {
    selector: labelSelectorSchema('Pods (in this namespace) the rules apply to.'),
    rules: Type.Optional(list(TransitionRuleSchema)),
  },
  { description: 'Desired state of a PodTransitionRule.' },
);
export type PodTransitionRuleSpec = Static<typeof PodTransitionRuleSpecSchema>;

export const RejectInfoSchema = Type.Object({ ruleName: str(), reason: str() });
export type RejectInfo = Static<typeof RejectInfoSchema>;

export const TransitionRuleDetailSchema = Type.Object({
  name: str(),
  stage: Type.Optional(str()),
  passed: bool(),
  passedRules: Type.Optional(list(str())),
  rejectInfo: Type.Optional(list(RejectInfoSchema)),
});
export type TransitionRuleDetail = Static<typeof TransitionRuleDetailSchema>;

export const TaskStateSchema = Type.Object({
  taskId: str(),
  processing: Type.Optional(list(str())),
  approved: Type.Optional(list(str())),
  beginTime: Type.Optional(str({ format: 'date-time' })),
  lastTime: Type.Optional(str({ format: 'date-time' })),
  message: Type.Optional(str()),
});
export type TaskState = Static<typeof TaskStateSchema>;

export const RuleStateSchema = Type.Object({
  name: str(),
  webhookStatus: Type.Optional(
    Type.Object({
      taskStates: Type.Optional(list(TaskStateSchema)),
      history: Type.Optional(list(TaskStateSchema)),
    }),
  ),
});
export type RuleState = Static<typeof RuleStateSchema>;

export const PodTransitionRuleStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(int64()),
    updateTime: Type.Optional(str({ format: 'date-time' })),
    targets: Type.Optional(list(str(), { description: 'Sorted names of the selected pods.' })),
    details: Type.Optional(list(TransitionRuleDetailSchema, { description: 'Per in-stage pod result, sorted by name.' })),
    ruleStates: Type.Optional(list(RuleStateSchema, { description: 'State of webhook rules (poll tasks).' })),
    // Not in the anchor (extra status fields are ignored by its tools): counts for kubectl get.
    targetCount: Type.Optional(int64({ description: 'Number of selected pods.' })),
    passedCount: Type.Optional(int64({ description: 'Pods in a stage that passed every rule of it.' })),
    waitingCount: Type.Optional(int64({ description: 'Pods in a stage held by at least one rule.' })),
  },
  { description: 'Observed state of a PodTransitionRule.' },
);
export type PodTransitionRuleStatus = Static<typeof PodTransitionRuleStatusSchema>;

export const PodTransitionRuleSchema = resourceSchema(PodTransitionRuleSpecSchema, PodTransitionRuleStatusSchema, 'PodTransitionRule gates the PreCheck/PostCheck stages of PodOpsLifecycle for the pods it selects.');
export type PodTransitionRule = Static<typeof PodTransitionRuleSchema>;
