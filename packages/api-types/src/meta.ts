// Types shared by both kinds: label selectors, int-or-string, object metadata, GVK constants.
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Type, list, str, stringEnum, stringMap } from './schema-kit.ts';
import type { Static } from 'typebox';

/** Kubernetes `intstr.IntOrString` as it appears in JSON. */
export type IntOrString = number | string;

export type ObjectMeta = V1ObjectMeta;

export const LABEL_SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
export type LabelSelectorOperator = (typeof LABEL_SELECTOR_OPERATORS)[number];

export const LabelSelectorRequirementSchema = Type.Object(
  {
    key: str({ description: 'The label key that the selector applies to.' }),
    operator: stringEnum(LABEL_SELECTOR_OPERATORS, {
      description: "A key's relationship to a set of values: In, NotIn, Exists or DoesNotExist.",
    }),
    values: Type.Optional(
      list(str(), {
        description: 'Values for In/NotIn (non-empty); empty for Exists/DoesNotExist.',
        'x-kubernetes-list-type': 'atomic',
      }),
    ),
  },
  { description: 'A selector requirement: a key, an operator and values.' },
);
export type LabelSelectorRequirement = Static<typeof LabelSelectorRequirementSchema>;

export function labelSelectorSchema(description: string, rules: { rule: string; message: string }[] = []) {
  return Type.Object(
    {
      matchLabels: Type.Optional(stringMap({ description: 'Equality requirements, ANDed with matchExpressions.' })),
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
