// Every rejection of Kuperator's validating webhook, each with the label it names, and what passes; and the one rule on
// what a write asks for (an undo names the type it cancels), checked before the mutating webhook.
import { describe, expect, it } from 'vitest';
import { POL_ANNOTATIONS } from '@cloneset-suite/api-types';
import { requestViolations, validatePod, violationMessage } from '../../src/core/validate.ts';
import { k, pod, type PodSpecShort } from './fixtures.ts';

const T = '1000';

describe('validatePod', () => {
  it.each<{ name: string; pod: PodSpecShort; reason: string; field: string }>([
    {
      name: 'malformed available-conditions JSON',
      pod: { annotations: { [POL_ANNOTATIONS.availableConditions]: '{"expectedFinalizers":' } },
      reason: `invalid annotation ${POL_ANNOTATIONS.availableConditions}: not valid JSON`,
      field: `metadata.annotations[${POL_ANNOTATIONS.availableConditions}]`,
    },
    {
      name: 'available-conditions of the wrong shape',
      pod: { annotations: { [POL_ANNOTATIONS.availableConditions]: '{"expectedFinalizers":{"Service/ns/a":7}}' } },
      reason: 'is not a string',
      field: `metadata.annotations[${POL_ANNOTATIONS.availableConditions}]`,
    },
    { name: 'a per-id label without /', pod: { labels: { operating: T } }, reason: `invalid label ${k('operating')}`, field: `metadata.labels[${k('operating')}]` },
    { name: 'a per-id label with an empty id', pod: { labels: { [`${k('operate')}/`]: T } }, reason: 'invalid label', field: `metadata.labels[${k('operate')}/]` },
    {
      name: 'operated without done-operation-type',
      pod: { labels: { 'operated/a': T } },
      reason: `not found label ${k('done-operation-type/a')}`,
      field: `metadata.labels[${k('done-operation-type/a')}]`,
    },
    {
      name: 'done-operation-type without operated',
      pod: { labels: { 'done-operation-type/a': 'update' } },
      reason: `not found label ${k('operated/a')}`,
      field: `metadata.labels[${k('operated/a')}]`,
    },
    {
      name: 'pre-checked without any operation-permission',
      pod: { labels: { 'operating/a': T, 'operation-type/a': 'update', 'pre-checked/a': T } },
      reason: `not found the expected label prefixes: ${k('permission')}`,
      field: `metadata.labels[${k('permission')}/*]`,
    },
    {
      name: 'operation-permission without any pre-checked',
      pod: { labels: { 'permission/update': T } },
      reason: `not found the expected label prefixes: ${k('pre-checked')}`,
      field: `metadata.labels[${k('pre-checked')}/*]`,
    },
  ])('refuses $name', (row) => {
    const violations = validatePod(pod(row.pod));
    expect(violations).toHaveLength(1);
    expect(violations[0]!.field).toBe(row.field);
    expect(violations[0]!.reason).toContain(row.reason);
    expect(violationMessage(violations)).toMatch(/^failed to validate PodOpsLifecycleWebhook, /);
  });

  it.each<{ name: string; labels: Record<string, string> }>([
    { name: 'a pod in no lifecycle', labels: { 'service-available': T } },
    { name: 'a begun operation', labels: { 'operating/a': T, 'operation-type/a': 'update', 'pre-check/a': T } },
    { name: 'a type label alone (finished, waiting at the barrier)', labels: { 'operation-type/a': 'update' } },
    { name: 'pre-checked and a permission of another type', labels: { 'operating/a': T, 'operation-type/a': 'x', 'pre-checked/a': T, 'permission/y': T } },
    { name: 'operated with done-operation-type', labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T } },
    // As Kuperator: operators may write operating and operation-type in two writes.
    { name: 'operating without operation-type', labels: { 'operating/a': T, 'pre-check/a': T } },
  ])('allows $name', ({ labels }) => {
    expect(validatePod(pod({ labels }))).toEqual([]);
  });

  it('reports every violation at once', () => {
    const p = pod({ labels: { operating: T, 'operated/a': T } });
    p.metadata!.annotations = { [POL_ANNOTATIONS.availableConditions]: 'nope' };
    expect(validatePod(p).map((v) => v.field)).toEqual([
      `metadata.annotations[${POL_ANNOTATIONS.availableConditions}]`,
      `metadata.labels[${k('operating')}]`,
      `metadata.labels[${k('done-operation-type/a')}]`,
    ]);
  });
});

describe('requestViolations: an undo names the type it cancels', () => {
  it.each<{ name: string; labels: Record<string, string>; types: string }>([
    { name: 'while operating', labels: { 'operating/a': T, 'operation-type/a': 'update', 'undo-operation-type/a': 'scale-in' }, types: 'update' },
    { name: 'after the operated transition', labels: { 'operated/a': T, 'done-operation-type/a': 'restart', 'undo-operation-type/a': 'update' }, types: 'restart' },
  ])('refuses an undo of another type $name, naming the id and its types', ({ labels, types }) => {
    const violations = requestViolations(pod({ labels }));
    expect(violations).toHaveLength(1);
    expect(violations[0]!.field).toBe(`metadata.labels[${k('undo-operation-type/a')}]`);
    expect(violations[0]!.reason).toContain(`lifecycle a runs operation type ${types}`);
  });

  it.each<{ name: string; labels: Record<string, string> }>([
    { name: 'the running type', labels: { 'operating/a': T, 'operation-type/a': 'update', 'undo-operation-type/a': 'update' } },
    { name: 'an id with no type (the webhook clears it)', labels: { 'operating/a': T, 'undo-operation-type/a': 'update' } },
    { name: 'an unknown id (the webhook clears its stray labels)', labels: { 'undo-operation-type/x': 'update' } },
    { name: 'a pod with no undo', labels: { 'operating/a': T, 'operation-type/a': 'update' } },
  ])('allows $name', ({ labels }) => {
    expect(requestViolations(pod({ labels }))).toEqual([]);
  });
});
