import { describe, expect, it, vi } from 'vitest';
import type { PodTransitionRuleStatus } from '@cloneset-suite/api-types';
import type { ResourceEventHandler } from '@cloneset-suite/kube-runtime';
import { checkStage, podsWithChangedDecision, type CheckedRule } from '../../src/core/checker.ts';
import { stageGateFromInformer } from '../../src/reconciler/stage-gate.ts';
import type { PodTransitionRuleObject } from '../../src/reconciler/resources.ts';

const rule = (name: string, status: PodTransitionRuleStatus, namespace = 'ns'): CheckedRule => ({ metadata: { name, namespace }, status });

describe('checkStage', () => {
  const r1 = rule('r1', { targets: ['p'], details: [{ name: 'p', stage: 'PreCheck', passed: true }] });
  const r2 = rule('r2', { targets: ['p'], details: [{ name: 'p', stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'avail', reason: 'blocked' }] }] });
  const pending = rule('r3', { targets: ['p'], details: [] });
  it.each([
    ['no rule targets the pod', [], true, ''],
    ['every rule passed it', [r1], true, ''],
    ['one of several rejects it (AND)', [r1, r2], false, '[PodTransitionRule: r2, RejectInfo: avail:blocked]'],
    ['a rule has not evaluated it yet', [r1, pending], false, '[PodTransitionRule: r3, waiting for podtransitionrule r3 processing]'],
    ['a rule passed it in the other stage', [rule('r4', { targets: ['p'], details: [{ name: 'p', stage: 'PostCheck', passed: true }] })], false, '[PodTransitionRule: r4, waiting for podtransitionrule r4 processing]'],
    ['a rule targets another pod', [rule('r5', { targets: ['q'], details: [{ name: 'q', stage: 'PreCheck', passed: false }] })], true, ''],
  ])('%s', (_name, rules, passed, message) => {
    expect(checkStage('p', 'PreCheck', rules)).toEqual({ passed, message });
  });

  it('podsWithChangedDecision names pods whose target membership or verdict changed', () => {
    const before = rule('r', { targets: ['a', 'b', 'c'], details: [{ name: 'a', stage: 'PreCheck', passed: false }, { name: 'b', stage: 'PreCheck', passed: true }] });
    const after = rule('r', { targets: ['a', 'b', 'd'], details: [{ name: 'a', stage: 'PreCheck', passed: true }, { name: 'b', stage: 'PreCheck', passed: true }] });
    expect(podsWithChangedDecision(before, after)).toEqual(['a', 'c', 'd']);
  });
});

describe('stageGateFromInformer (the StageGate port)', () => {
  it('answers from the cache and rings the doorbell synchronously when a decision changes', () => {
    const handlers: ResourceEventHandler<PodTransitionRuleObject>[] = [];
    let objects: PodTransitionRuleObject[] = [];
    const gate = stageGateFromInformer({
      list: (q?: { namespace?: string }) => objects.filter((o) => o.metadata?.namespace === q?.namespace),
      addEventHandler: (h) => {
        handlers.push(h);
        return () => handlers.splice(handlers.indexOf(h), 1);
      },
    });
    const notify = vi.fn();
    const unsubscribe = gate.onDecisionChange(notify);
    const blocked = { metadata: { name: 'r', namespace: 'ns' }, spec: { selector: {} }, status: { targets: ['p'], details: [{ name: 'p', stage: 'PreCheck', passed: false }] } } as PodTransitionRuleObject;
    const open = { ...blocked, status: { targets: ['p'], details: [{ name: 'p', stage: 'PreCheck', passed: true }] } } as PodTransitionRuleObject;
    objects = [blocked];
    handlers.forEach((h) => h.onAdd?.(blocked, false));
    expect(notify).toHaveBeenLastCalledWith('ns', 'p');
    const p = { metadata: { name: 'p', namespace: 'ns' } };
    expect(gate.check(p, 'PreCheck').passed).toBe(false);
    expect(gate.check({ metadata: { name: 'p', namespace: 'other' } }, 'PreCheck').passed).toBe(true);
    notify.mockClear();
    objects = [open];
    handlers.forEach((h) => h.onUpdate?.(blocked, open));
    expect(notify).toHaveBeenCalledExactlyOnceWith('ns', 'p');
    expect(gate.check(p, 'PreCheck')).toEqual({ passed: true, message: '' });
    // A status write that changes nothing the gate answers rings nothing.
    notify.mockClear();
    handlers.forEach((h) => h.onUpdate?.(open, { ...open }));
    expect(notify).not.toHaveBeenCalled();
    unsubscribe();
    expect(handlers).toHaveLength(0);
  });
});
