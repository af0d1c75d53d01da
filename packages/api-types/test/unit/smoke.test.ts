import { describe, expect, it } from 'vitest';
import { CLONESET_GVK, PODTRANSITIONRULE_GVK, resolvePartition, labelSelectorToString } from '../../src/index.ts';

describe('public API', () => {
  it('exposes the identities of both kinds', () => {
    expect(CLONESET_GVK.apiVersion).toBe('apps.kruise.io/v1alpha1');
    expect(PODTRANSITIONRULE_GVK.shortNames).toEqual(['ptr']);
    expect(resolvePartition('50%', 1)).toBe(1);
    expect(labelSelectorToString({ matchLabels: { app: 'sample' } })).toBe('app=sample');
  });
});
