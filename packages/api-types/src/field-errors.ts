// Field errors in the shape of Kubernetes' field.Error, and their text form
// (`spec.updateStrategy.maxSurge: Invalid value: "x": must be ...`) for admission responses.

export const FIELD_ERROR_TYPES = ['Invalid', 'Required', 'Forbidden', 'NotSupported', 'Duplicate'] as const;
export type FieldErrorType = (typeof FIELD_ERROR_TYPES)[number];

export interface FieldError {
  /** Dotted path with indices, e.g. `spec.rules[0].name`. */
  field: string;
  type: FieldErrorType;
  value?: unknown;
  message: string;
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  Invalid: 'Invalid value',
  Required: 'Required value',
  Forbidden: 'Forbidden',
  NotSupported: 'Unsupported value',
  Duplicate: 'Duplicate value',
};

// Kubernetes omits the value for Required and Forbidden, quotes strings and prints numbers bare.
function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  // JSON.stringify gives undefined for functions and undefined itself.
  return JSON.stringify(value) ?? 'undefined';
}

export function formatFieldError(error: FieldError): string {
  const withValue = error.type !== 'Required' && error.type !== 'Forbidden' && 'value' in error;
  const head = withValue ? `${TYPE_TEXT[error.type]}: ${formatValue(error.value)}` : TYPE_TEXT[error.type];
  return error.message === '' ? `${error.field}: ${head}` : `${error.field}: ${head}: ${error.message}`;
}

/** All errors in one line, as the apiserver aggregates them: `[a, b]` for several. */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  const parts = errors.map(formatFieldError);
  return parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
}

export const fieldError = {
  invalid: (field: string, value: unknown, message: string): FieldError => ({ field, type: 'Invalid', value, message }),
  required: (field: string, message = ''): FieldError => ({ field, type: 'Required', message }),
  forbidden: (field: string, message: string): FieldError => ({ field, type: 'Forbidden', message }),
  notSupported: (field: string, value: unknown, supported: readonly string[]): FieldError => ({
    field,
    type: 'NotSupported',
    value,
    message: `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  }),
  duplicate: (field: string, value: unknown): FieldError => ({ field, type: 'Duplicate', value, message: '' }),
};

/** Builds `a.b`, `a[0]` and `a[key]` paths. */
export class FieldPath {
  readonly path: string;
  constructor(path: string) {
    this.path = path;
  }
  child(name: string): FieldPath {
    return new FieldPath(this.path === '' ? name : `${this.path}.${name}`);
  }
  index(i: number | string): FieldPath {
    return new FieldPath(`${this.path}[${i}]`);
  }
  toString(): string {
    return this.path;
  }
}
