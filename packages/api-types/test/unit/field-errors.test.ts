import { describe, expect, it } from 'vitest';
import { fieldError, formatFieldErrors, type FieldError } from '../../src/index.ts';
import { FieldPath, formatFieldError } from '../../src/field-errors.ts';

describe('formatFieldError (the Kubernetes text form)', () => {
  it.each<[FieldError, string]>([
    [fieldError.invalid('spec.updateStrategy.maxSurge', 'x', 'must be an integer or percentage'), 'spec.updateStrategy.maxSurge: Invalid value: "x": must be an integer or percentage'],
    [fieldError.invalid('spec.replicas', -1, 'replicas cannot be negative'), 'spec.replicas: Invalid value: -1: replicas cannot be negative'],
    [fieldError.invalid('spec.selector', {}, 'empty selector is invalid for cloneset'), 'spec.selector: Invalid value: {}: empty selector is invalid for cloneset'],
    [fieldError.required('spec.selector'), 'spec.selector: Required value'],
    [fieldError.required('spec.rules[0].name', 'rule name is required'), 'spec.rules[0].name: Required value: rule name is required'],
    [fieldError.forbidden('spec', 'no'), 'spec: Forbidden: no'],
    [fieldError.notSupported('spec.updateStrategy.type', 'X', ['A', 'B']), 'spec.updateStrategy.type: Unsupported value: "X": supported values: "A", "B"'],
    [fieldError.duplicate('spec.scaleStrategy.podsToDelete[1]', 'a'), 'spec.scaleStrategy.podsToDelete[1]: Duplicate value: "a"'],
  ])('%j', (error, text) => {
    expect(formatFieldError(error)).toBe(text);
  });

  it('aggregates several errors in brackets and leaves one alone', () => {
    const a = fieldError.required('a');
    const b = fieldError.required('b');
    expect(formatFieldErrors([a])).toBe('a: Required value');
    expect(formatFieldErrors([a, b])).toBe('[a: Required value, b: Required value]');
    expect(formatFieldErrors([])).toBe('[]');
  });
});

describe('FieldPath', () => {
  it('builds dotted and indexed paths', () => {
    expect(new FieldPath('spec').child('rules').index(2).child('name').toString()).toBe('spec.rules[2].name');
    expect(new FieldPath('').child('spec').toString()).toBe('spec');
    expect(new FieldPath('metadata').child('labels').index('a/b').toString()).toBe('metadata.labels[a/b]');
  });
});
