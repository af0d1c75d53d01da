// Public face of @cloneset-suite/api-types: re-exports only.
export type { IntOrString, LabelSelector, LabelSelectorRequirement, LabelSelectorOperator, ObjectMeta, GroupVersionKind } from './meta.ts';
export { LABEL_SELECTOR_OPERATORS, LabelSelectorSchema } from './meta.ts';

export * from './cloneset/schema.ts';
export * from './cloneset/v1beta1-schema.ts';
export { convertCloneSet, CloneSetConversionError, CLONESET_API_VERSIONS } from './cloneset/conversion/convert.ts';
export { cloneSetToV1alpha1, cloneSetToV1beta1, CONVERSION_ANNOTATIONS } from './cloneset/conversion/carry.ts';
export * from './transition-rule/schema.ts';

export * from './keys/kruise.ts';
export * from './keys/podopslifecycle.ts';
export * from './keys/transition-rule.ts';
export * from './keys/kusion.ts';
export * from './keys/kubectl.ts';

export * from './intstr.ts';
export * from './selector.ts';
export * from './field-errors.ts';
export * from './names.ts';

export { cloneSetCrd, CLONESET_OPT_IN_VERSION, podTransitionRuleCrd, webhookConversion, CLONESET_PRINTER_COLUMNS, PODTRANSITIONRULE_PRINTER_COLUMNS } from './crd/definitions.ts';
export type { PrinterColumn, CustomResourceDefinition, CrdVersion, SchemaNode, CrdConversion, WebhookClientConfig, CloneSetCrdOptions } from './crd/definitions.ts';
export { renderCrdFiles, renderYaml, type GeneratedFile } from './crd/generate.ts';

export * from './cloneset/defaults.ts';
export * from './cloneset/validation.ts';
export * from './cloneset/admission-limits.ts';
export { defaultPodTemplate, defaultPodTemplateInPlace, defaultPodSpec, defaultPersistentVolumeClaimInPlace } from './cloneset/pod-defaults.ts';
export { validateCloneSetTemplate } from './cloneset/template-validation.ts';
export * from './transition-rule/defaults.ts';
export * from './transition-rule/validation.ts';
export { jsonEqual } from './json-equal.ts';
export { parseQuantity } from './quantity.ts';
