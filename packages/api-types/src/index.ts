// Public face of @cloneset-suite/api-types: re-exports only, and only what other packages import
// (its own tests import its modules directly).
export type { IntOrString, LabelSelector, LabelSelectorRequirement, LabelSelectorOperator, ObjectMeta, GroupVersionKind } from './meta.ts';
export { LABEL_SELECTOR_OPERATORS, LabelSelectorSchema } from './meta.ts';

export { CLONESET_GVK } from './cloneset/schema.ts';
export type { CloneSet } from './cloneset/schema.ts';

export { convertCloneSet, CloneSetConversionError, CLONESET_API_VERSIONS } from './cloneset/conversion/convert.ts';
export { cloneSetToV1alpha1, cloneSetToV1beta1, CONVERSION_ANNOTATIONS } from './cloneset/conversion/carry.ts';
export { PODTRANSITIONRULE_GVK, PTR_MAX_PARAMETER_VALUE_BYTES, PTR_MAX_WEBHOOK_PARAMETERS } from './transition-rule/schema.ts';
export type { AvailablePolicy, LabelCheckRule, Parameter, PodTransitionRule, PodTransitionRuleSpec, PodTransitionRuleStatus, RuleState, TaskState, TransitionRule, TransitionRuleDetail, WebhookRule } from './transition-rule/schema.ts';

export { IMAGE_PREDOWNLOAD_DEFAULTS, KRUISE_ANNOTATIONS, KRUISE_LABELS, KRUISE_READINESS_GATES, LIFECYCLE_STATES, NOT_READY_KEYS } from './keys/kruise.ts';
export { POL_ANNOTATIONS, POL_CLONESET_ID, POL_LABELS, POL_OPERATION_TYPES, POL_PER_ID_PREFIXES, POL_PHASE_LABEL, POL_PREFIXES, POL_PROTECTION_FINALIZER_PREFIX, POL_SERVICE_READY_GATE, POL_SERVICE_READY_MESSAGE, POL_TRAFFIC_FINALIZER, POL_TRAFFIC_OPT_OUT_ANNOTATION, POL_TRAFFIC_OPT_OUT_VALUE, lifecycleIds, nanoTimestamp, nanoTimestampToDate, parseNanoTimestamp, parsePolKey, polKey } from './keys/podopslifecycle.ts';
export type { PolPrefix, PolPrefixName } from './keys/podopslifecycle.ts';
export { PTR_DEFAULT_POLL_QUERY_KEY, PTR_PROTECTION_FINALIZER, PTR_SKIP_RULE_CONDITIONS_ANNOTATION, ptrDetailAnnotation, ptrDetailsOf } from './keys/transition-rule.ts';
export { KUSION_CONTROL_LABEL, KUSION_CONTROL_VALUE, isKusionControlled } from './keys/kusion.ts';
export { KUBECTL_RESTARTED_AT_ANNOTATION } from './keys/kubectl.ts';

export { parseIntOrPercent, resolveCloneSetKnobs, resolvePartition, scalePercent, tryParseIntOrPercent } from './intstr.ts';
export { InvalidLabelSelectorError, compileLabelSelector, labelSelectorMatches, labelSelectorToString } from './selector.ts';
export { fieldError, formatFieldErrors } from './field-errors.ts';
export type { FieldError, FieldErrorType } from './field-errors.ts';

export { cloneSetCrd, CLONESET_OPT_IN_VERSION, podTransitionRuleCrd, webhookConversion, CLONESET_PRINTER_COLUMNS, PODTRANSITIONRULE_PRINTER_COLUMNS } from './crd/definitions.ts';
export type { PrinterColumn, CustomResourceDefinition, CrdVersion, SchemaNode, CrdConversion, WebhookClientConfig, CloneSetCrdOptions } from './crd/definitions.ts';
export { renderCrdFiles, renderYaml, type GeneratedFile } from './crd/generate.ts';

export { defaultCloneSet } from './cloneset/defaults.ts';
export { validateCloneSet, validateCloneSetDeletion } from './cloneset/validation.ts';
export type { PodLookup } from './cloneset/validation.ts';
export { MAX_CLONESET_REPLICAS, MAX_PODS_TO_DELETE, validateScaleReplicas } from './cloneset/admission-limits.ts';
export { defaultPodTemplate, defaultPodTemplateInPlace, defaultPodSpec, defaultPersistentVolumeClaimInPlace } from './cloneset/pod-defaults.ts';
export { validateCloneSetTemplate } from './cloneset/template-validation.ts';
export { PTR_DEFAULT_POLL_INTERVAL_SECONDS, PTR_DEFAULT_POLL_TIMEOUT_SECONDS, defaultPodTransitionRule } from './transition-rule/defaults.ts';
export { caBundleProblem, validatePodTransitionRule } from './transition-rule/validation.ts';
export { jsonEqual } from './json-equal.ts';
export { parseQuantity } from './quantity.ts';
