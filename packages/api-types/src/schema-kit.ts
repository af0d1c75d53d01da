// Small builders over TypeBox for the subset of OpenAPI v3 that Kubernetes accepts in a
// structural CRD schema: every node typed, no $ref/anyOf/const, maps as additionalProperties.
// Each builder still yields a TypeBox schema, so `Static<>` gives the TypeScript type.
import Type, { type TSchema, type TUnsafe } from 'typebox';

export interface CelRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  optionalOldSelf?: boolean;
}

export interface NodeOptions {
  description?: string;
  /** Applied by the apiserver when the field is absent and its parent object exists. */
  default?: unknown;
  maxProperties?: number;
  'x-kubernetes-validations'?: CelRule[];
}

export interface IntegerOptions extends NodeOptions {
  minimum?: number;
  maximum?: number;
}

export interface StringOptions extends NodeOptions {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: 'date-time' | 'byte';
}

const INT32_MAX = 2147483647;

export function int32(options: IntegerOptions = {}): TUnsafe<number> {
  return Type.Unsafe<number>({ type: 'integer', format: 'int32', ...options });
}

export function int64(options: IntegerOptions = {}): TUnsafe<number> {
  return Type.Unsafe<number>({ type: 'integer', format: 'int64', ...options });
}

export function str(options: StringOptions = {}): TUnsafe<string> {
  return Type.Unsafe<string>({ type: 'string', ...options });
}

export function bool(options: NodeOptions = {}): TUnsafe<boolean> {
  return Type.Unsafe<boolean>({ type: 'boolean', ...options });
}

/** A string restricted to a closed set; typed as the union of its members. */
export function stringEnum<const V extends readonly string[]>(values: V, options: NodeOptions = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });
}

/** map[string]string, as Kubernetes writes it (additionalProperties, not patternProperties). */
export function stringMap(options: NodeOptions & { valueMaxLength?: number } = {}): TUnsafe<Record<string, string>> {
  const { valueMaxLength, ...rest } = options;
  return Type.Unsafe<Record<string, string>>({
    type: 'object',
    additionalProperties: { type: 'string', ...(valueMaxLength === undefined ? {} : { maxLength: valueMaxLength }) },
    ...rest,
  });
}

/** Longest label key (253-character prefix, '/', 63-character name) and label value. */
export const LABEL_KEY_MAX_LENGTH = 317;
export const LABEL_VALUE_MAX_LENGTH = 63;

/** A label map: values bounded as Kubernetes bounds them, which also keeps CEL cost estimates low. */
export function labelMap(options: NodeOptions = {}): TUnsafe<Record<string, string>> {
  return stringMap({ valueMaxLength: LABEL_VALUE_MAX_LENGTH, ...options });
}

export interface IntOrStringOptions extends NodeOptions {
  /** Applies to the string form only (Kubernetes skips string checks on integers). */
  pattern?: string;
  /** Applies to the integer form only. */
  minimum?: number;
}

/** int-or-string: no `type`, as the structural-schema rules require for this extension. */
export function intOrString(options: IntOrStringOptions = {}): TUnsafe<number | string> {
  const { pattern, minimum, ...rest } = options;
  return Type.Unsafe<number | string>({
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    ...(minimum === undefined ? {} : { minimum, maximum: INT32_MAX }),
    ...(pattern === undefined ? {} : { pattern }),
    ...rest,
  });
}

export interface ArrayOptions extends NodeOptions {
  minItems?: number;
  maxItems?: number;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
}

export function list<T extends TSchema>(items: T, options: ArrayOptions = {}) {
  return Type.Array(items, { ...options });
}

/**
 * An object whose content the apiserver keeps as-is (pod and PVC templates): the webhook
 * validates it. Declared properties stay visible to CEL rules; the rest is preserved.
 */
export function preserved<T>(options: NodeOptions & { properties?: Record<string, TSchema> } = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...options });
}

export { Type };
