// Types shared by both kinds: label selectors, int-or-string, object metadata, GVK constants.
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { LABEL_KEY_MAX_LENGTH, LABEL_VALUE_MAX_LENGTH, Type, labelMap, list, str, stringEnum } from './schema-kit.ts';
import type { Static, TSchema } from 'typebox';

/** Kubernetes `intstr.IntOrString` as it appears in JSON. */
export type IntOrString = number | string;

export type ObjectMeta = V1ObjectMeta;

export const LABEL_SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
export type LabelSelectorOperator = (typeof LABEL_SELECTOR_OPERATORS)[number];

export const LabelSelectorRequirementSchema = Type.Object(
  {
    key: str({ description: 'The label key that the selector applies to.', maxLength: LABEL_KEY_MAX_LENGTH }),
    operator: stringEnum(LABEL_SELECTOR_OPERATORS, {
      description: "A key's relationship to a set of values: In, NotIn, Exists or DoesNotExist.",
    }),
    values: Type.Optional(
      list(str({ maxLength: LABEL_VALUE_MAX_LENGTH }), {
        description: 'Values for In/NotIn (non-empty); empty for Exists/DoesNotExist.',
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
  },
  { description: 'A selector requirement: a key, an operator and values.' },
);
export type LabelSelectorRequirement = Static<typeof LabelSelectorRequirementSchema>;

export interface LabelSelectorSchemaOptions {
  rules?: { rule: string; message: string }[];
  /** Bounds matchLabels where a CEL rule iterates over it (the apiserver refuses unbounded cost). */
  maxMatchLabels?: number;
}

export function labelSelectorSchema(description: string, options: LabelSelectorSchemaOptions = {}) {
  const rules = options.rules ?? [];
  return Type.Object(
    {
      matchLabels: Type.Optional(
        labelMap({
          description: 'Equality requirements, ANDed with matchExpressions.',
          ...(options.maxMatchLabels === undefined ? {} : { maxProperties: options.maxMatchLabels }),
        }),
      ),
      matchExpressions: Type.Optional(
        list(LabelSelectorRequirementSchema, {
          description: 'Label selector requirements, ANDed.',
          'x-kubernetes-list-type': 'atomic',
        }),
      ),
    },
    {
      description,
      'x-kubernetes-map-type': 'atomic',
      ...(rules.length > 0 ? { 'x-kubernetes-validations': rules } : {}),
    },
  );
}

export const LabelSelectorSchema = labelSelectorSchema('A label query over a set of resources.');
export type LabelSelector = Static<typeof LabelSelectorSchema>;

/** Group, version, kind and resource names of one custom resource. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly listKind: string;
  /** `<group>/<version>`, the apiVersion field of objects. */
  readonly apiVersion: string;
}

/** A custom resource's schema: apiVersion, kind, metadata (the apiserver's to check), spec and an optional status. */
export function resourceSchema<Spec extends TSchema, Status extends TSchema>(spec: Spec, status: Status, description: string) {
  return Type.Object(
    {
      apiVersion: Type.Optional(str()),
      kind: Type.Optional(str()),
      metadata: Type.Optional(Type.Unsafe<ObjectMeta>({ type: 'object' })),
      spec,
      status: Type.Optional(status),
    },
    { description },
  );
}
