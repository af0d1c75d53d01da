// Pods and rules for the engine's tests.
import { POL_LABELS, type PodTransitionRuleStatus, type TransitionRule } from '@cloneset-suite/api-types';
import type { RuleObject } from '../../src/core/types.ts';

export interface TestPod {
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };
  status?: Record<string, unknown>;
}

export interface PodOpts {
  /** Stage label: pre-check (default when stage given) / post-check, with entry timestamp. */
  stage?: 'PreCheck' | 'PostCheck';
  enteredAt?: number;
  available?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  status?: Record<string, unknown>;
}

export const NS = 'ns';

export function pod(name: string, opts: PodOpts = {}): TestPod {
  const labels: Record<string, string> = { app: 'web', ...(opts.labels ?? {}) };
  if (opts.available ?? true) labels[POL_LABELS.serviceAvailable] = '1';
  if (opts.stage) {
    const ts = String(BigInt(opts.enteredAt ?? 1_000) * 1_000_000n);
    labels['operating.podopslifecycle.kusionstack.io/x'] = ts;
    labels['operation-type.podopslifecycle.kusionstack.io/x'] = 'update';
    if (opts.stage === 'PreCheck') labels['pre-check.podopslifecycle.kusionstack.io/x'] = ts;
    else labels['post-check.podopslifecycle.kusionstack.io/x'] = ts;
  }
  return {
    metadata: { name, namespace: NS, labels, annotations: opts.annotations ?? {} },
    status: opts.status,
  };
}

export function ptr(rules: TransitionRule[], status?: PodTransitionRuleStatus, extra: Partial<NonNullable<RuleObject['metadata']>> = {}): RuleObject {
  return {
    metadata: { name: 'ptr', namespace: NS, generation: 1, finalizers: ['finalizer.operating.kusionstack.io/protected'], ...extra },
    spec: { selector: { matchLabels: { app: 'web' } }, rules },
    status,
  };
}
