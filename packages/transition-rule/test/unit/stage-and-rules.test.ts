import { describe, expect, it } from 'vitest';
import type { TransitionRule } from '@cloneset-suite/api-types';
import { effectiveRules, ruleAppliesTo, ruleKind, skippedRuleNames } from '../../src/core/rules.ts';
import { byStageEntry, podStage, stageEnteredAt } from '../../src/core/stage.ts';
import { pod } from './fixtures.ts';

describe('podStage', () => {
  it.each([
    [{ 'pre-check.podopslifecycle.kusionstack.io/a': '1' }, 'PreCheck'],
    [{ 'post-check.podopslifecycle.kusionstack.io/a': '1' }, 'PostCheck'],
    [{ 'pre-checked.podopslifecycle.kusionstack.io/a': '1' }, undefined],
    [{ 'post-checked.podopslifecycle.kusionstack.io/a': '1' }, undefined],
    [{ 'pre-check.podopslifecycle.kusionstack.io/a': '1', 'post-check.podopslifecycle.kusionstack.io/b': '1' }, 'PreCheck'],
    [{}, undefined],
  ])('%j -> %s', (labels, stage) => {
    expect(podStage({ metadata: { labels } })).toBe(stage);
  });

  it('orders by stage entry time, then name; unparsable timestamps last', () => {
    const a = pod('a', { stage: 'PreCheck', enteredAt: 3 });
    const b = pod('b', { stage: 'PreCheck', enteredAt: 1 });
    const c = pod('c', { stage: 'PreCheck', enteredAt: 1 });
    const d = { metadata: { name: '0', labels: { 'pre-check.podopslifecycle.kusionstack.io/x': 'junk' } } };
    expect([a, d, c, b].sort(byStageEntry('PreCheck')).map((p) => p.metadata.name)).toEqual(['b', 'c', 'a', '0']);
    expect(stageEnteredAt(a, 'PreCheck')).toBe(3_000_000n);
  });
});

const avail: TransitionRule = { name: 'avail', availablePolicy: { maxUnavailableValue: 1 } };
const label: TransitionRule = { name: 'label', labelCheck: { requires: { matchLabels: { ok: 'true' } } } };
const hook: TransitionRule = { name: 'hook', webhook: { clientConfig: { url: 'http://x' } } };

describe('effectiveRules: enabled rules of the stage, availablePolicy then labelCheck then webhook', () => {
  it('orders availablePolicy, labelCheck, webhook; declaration order within a kind; default stage PreCheck', () => {
    const avail2 = { ...avail, name: 'avail2' };
    const rules = [hook, label, avail, avail2];
    expect(effectiveRules(rules, 'PreCheck').map((r) => r.name)).toEqual(['avail', 'avail2', 'label', 'hook']);
    expect(effectiveRules(rules, 'PostCheck')).toEqual([]);
  });

  it('drops disabled rules, rules of other or unknown stages, and rules of no kind', () => {
    const rules: TransitionRule[] = [
      { ...avail, disabled: true },
      { ...label, stage: 'PostCheck' },
      { ...hook, stage: 'PreTrafficOff' },
      { name: 'nothing' },
    ];
    expect(effectiveRules(rules, 'PreCheck')).toEqual([]);
    expect(effectiveRules(rules, 'PostCheck').map((r) => r.name)).toEqual(['label']);
    expect(ruleKind({ name: 'both', labelCheck: label.labelCheck!, availablePolicy: avail.availablePolicy! })).toBe('availablePolicy');
  });
});

describe('ruleAppliesTo: skip annotation, conditions and filter', () => {
  it('skips pods naming the rule in the skip annotation, pods outside the filter, and rules with conditions', () => {
    const skipped = pod('s', { annotations: { 'podtransitionrule.kusionstack.io/skip-rule-conditions': '{"skipRules":["label"]}' } });
    const plain = pod('p', { labels: { tier: 'front' } });
    expect(ruleAppliesTo(label)(skipped)).toBe(false);
    expect(ruleAppliesTo(avail)(skipped)).toBe(true);
    const filtered: TransitionRule = { ...label, filter: { labelSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] } } };
    expect(ruleAppliesTo(filtered)(plain)).toBe(true);
    expect(ruleAppliesTo(filtered)(pod('q'))).toBe(false);
    expect(ruleAppliesTo({ ...label, conditions: ['c'] })(plain)).toBe(false);
  });

  it('a malformed skip annotation skips nothing', () => {
    expect(skippedRuleNames(pod('x', { annotations: { 'podtransitionrule.kusionstack.io/skip-rule-conditions': '{bad' } })).size).toBe(0);
    expect(skippedRuleNames(pod('x', { annotations: { 'podtransitionrule.kusionstack.io/skip-rule-conditions': '{"skipRules":"label"}' } })).size).toBe(0);
  });
});
