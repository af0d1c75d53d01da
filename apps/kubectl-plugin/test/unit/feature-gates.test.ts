import { FEATURE_GATE_DEFAULTS } from '@cloneset-suite/cloneset-controller';
import { describe, expect, it } from 'vitest';
import { parseFeatureGates } from '../../src/core/feature-gates.ts';

describe('parseFeatureGates', () => {
  it('starts from the defaults the controller-manager has', () => {
    expect(parseFeatureGates(undefined)).toEqual(FEATURE_GATE_DEFAULTS);
    expect(parseFeatureGates('')).toEqual(FEATURE_GATE_DEFAULTS);
  });

  const cases: [string, Partial<Record<keyof typeof FEATURE_GATE_DEFAULTS, boolean>>][] = [
    ['CloneSetShortHash=true', { CloneSetShortHash: true }],
    ['CloneSetShortHash=true,PreparingUpdateAsUpdate=false', { CloneSetShortHash: true, PreparingUpdateAsUpdate: false }],
    [' CloneSetPartitionRollback = T , ', { CloneSetPartitionRollback: true }],
    ['TemplateNoDefaults=1,ResourcesDeletionProtection=0', { TemplateNoDefaults: true, ResourcesDeletionProtection: false }],
    ['PreDownloadImageForInPlaceUpdate=TRUE,PreDownloadImageForInPlaceUpdate=false', { PreDownloadImageForInPlaceUpdate: false }],
  ];
  it.each(cases)('%j', (flag, expected) => {
    expect(parseFeatureGates(flag)).toEqual({ ...FEATURE_GATE_DEFAULTS, ...expected });
  });

  const refused: [string, string][] = [
    ['Nope=true', 'unknown feature gate "Nope" (known: CloneSetShortHash, '],
    ['CloneSetShortHash', 'invalid --feature-gates "CloneSetShortHash": expected NAME=true|false'],
    ['CloneSetShortHash=yes', 'feature gate CloneSetShortHash must be true or false, got "yes"'],
    ['CloneSetShortHash=true=false', 'invalid --feature-gates'],
  ];
  it.each(refused)('%j is refused: %s', (flag, message) => {
    expect(() => parseFeatureGates(flag)).toThrow(message);
  });
});
