// Label selectors as Kubernetes evaluates them (LabelSelectorAsSelector): a nil selector matches
// nothing, an empty one everything; requirements are ANDed. The string form is the canonical one
// the apiserver prints (`app=sample,tier in (a,b)`), used for status.labelSelector.
import { FieldPath, fieldError, formatFieldErrors, type FieldError } from './field-errors.ts';
import { LABEL_SELECTOR_OPERATORS, type LabelSelector, type LabelSelectorRequirement } from './meta.ts';
import { labelValueErrors, qualifiedNameErrors } from './names.ts';

export type Labels = Readonly<Record<string, string>>;

export class InvalidLabelSelectorError extends Error {
  override name = 'InvalidLabelSelectorError';
  readonly errors: readonly FieldError[];
  constructor(errors: readonly FieldError[]) {
    super(`invalid label selector: ${formatFieldErrors(errors)}`);
    this.errors = errors;
  }
}

/** Syntax errors of a selector (keys, values, operators), with paths under `path`. */
export function validateLabelSelector(selector: LabelSelector, path = new FieldPath('selector')): FieldError[] {
  const errs: FieldError[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    for (const m of qualifiedNameErrors(key)) errs.push(fieldError.invalid(path.child('matchLabels').toString(), key, m));
    for (const m of labelValueErrors(value)) errs.push(fieldError.invalid(path.child('matchLabels').toString(), value, m));
  }
  (selector.matchExpressions ?? []).forEach((expr, i) => {
    const p = path.child('matchExpressions').index(i);
    for (const m of qualifiedNameErrors(expr.key)) errs.push(fieldError.invalid(p.child('key').toString(), expr.key, m));
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) {
          errs.push(fieldError.required(p.child('values').toString(), 'must be specified when `operator` is \'In\' or \'NotIn\''));
        }
        values.forEach((v, j) => {
          for (const m of labelValueErrors(v)) errs.push(fieldError.invalid(p.child('values').index(j).toString(), v, m));
        });
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          errs.push(fieldError.forbidden(p.child('values').toString(), 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
        }
        break;
      default:
        errs.push(fieldError.notSupported(p.child('operator').toString(), expr.operator, LABEL_SELECTOR_OPERATORS));
    }
  });
  return errs;
}

function requirementMatches(expr: LabelSelectorRequirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, expr.key);
  switch (expr.operator) {
    case 'In':
      return has && (expr.values ?? []).includes(labels[expr.key] ?? '');
    case 'NotIn':
      return !has || !(expr.values ?? []).includes(labels[expr.key] ?? '');
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

/**
 * Compiles a selector into a predicate once (for matching many pods). Throws
 * InvalidLabelSelectorError when the selector is invalid, as the conversion does in Kubernetes.
 */
export function compileLabelSelector(selector: LabelSelector | null | undefined): (labels: Labels | undefined) => boolean {
  if (selector === null || selector === undefined) return () => false;
  const errs = validateLabelSelector(selector);
  if (errs.length > 0) throw new InvalidLabelSelectorError(errs);
  const equals = Object.entries(selector.matchLabels ?? {});
  const exprs = [...(selector.matchExpressions ?? [])];
  return (labels) => {
    const l = labels ?? {};
    return equals.every(([k, v]) => Object.hasOwn(l, k) && l[k] === v) && exprs.every((e) => requirementMatches(e, l));
  };
}

/** Whether `labels` satisfy `selector`. Nil matches nothing; `{}` matches everything. */
export function labelSelectorMatches(selector: LabelSelector | null | undefined, labels: Labels | undefined): boolean {
  return compileLabelSelector(selector)(labels);
}

/** True when the selector has neither matchLabels nor matchExpressions (it selects everything). */
export function isEmptyLabelSelector(selector: LabelSelector): boolean {
  return Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

function requirementString(expr: LabelSelectorRequirement): string {
  const values = [...(expr.values ?? [])].sort();
  switch (expr.operator) {
    case 'In':
      return `${expr.key} in (${values.join(',')})`;
    case 'NotIn':
      return `${expr.key} notin (${values.join(',')})`;
    case 'Exists':
      return expr.key;
    case 'DoesNotExist':
      return `!${expr.key}`;
  }
}

/**
 * The canonical string form: requirements sorted by key (stable: matchLabels before expressions
 * of the same key), values sorted, joined by commas. `{}` gives "". Throws on an invalid selector.
 */
export function labelSelectorToString(selector: LabelSelector): string {
  const errs = validateLabelSelector(selector);
  if (errs.length > 0) throw new InvalidLabelSelectorError(errs);
  const parts: { key: string; text: string }[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) parts.push({ key, text: `${key}=${value}` });
  for (const expr of selector.matchExpressions ?? []) parts.push({ key: expr.key, text: requirementString(expr) });
  // Array.prototype.sort is stable; compare by code units as Go's string comparison does (bytes,
  // which agrees with code units for the ASCII that label keys are made of).
  parts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return parts.map((p) => p.text).join(',');
}
