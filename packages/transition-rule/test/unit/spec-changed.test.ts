import { describe, expect, it } from 'vitest';
import { specChanged } from '../../src/reconciler/spec-changed.ts';
import type { PodTransitionRuleObject } from '../../src/reconciler/resources.ts';

const base = { metadata: { name: 'r', generation: 1, finalizers: ['f'] }, spec: { selector: {} }, status: { targets: ['a'] } } as PodTransitionRuleObject;

describe('specChanged', () => {
  it.each<[string, PodTransitionRuleObject, boolean]>([
    ['a status-only update (our own write) starts nothing', { ...base, status: { targets: ['a', 'b'] } }, false],
    ['a spec change (new generation) starts a round', { ...base, metadata: { ...base.metadata, generation: 2 } }, true],
    ['the deletion mark starts a round', { ...base, metadata: { ...base.metadata, deletionTimestamp: 'now' } }, true],
    ['a finalizer change starts a round', { ...base, metadata: { ...base.metadata, finalizers: [] } }, true],
  ])('%s', (_name, after, changed) => {
    expect(specChanged(base, after)).toBe(changed);
  });
});
