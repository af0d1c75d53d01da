// Hand edits never surprise: a CloneSet that only means to update its controlled pods in place
// (replicas unchanged, a change that can be made in place) never deletes one, nor marks one for a
// re-create, whatever anyone writes into `operation-type.podopslifecycle.kusionstack.io/cloneset`
// and whenever the lifecycle grants `operate`. The planner runs pass after pass; its lifecycle
// writes are applied as the shell writes them (planOperationWrite) and as the lifecycle webhook
// answers an undo (every label of the id goes).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { KUSION_CONTROL_LABEL, POL_CLONESET_ID, POL_LABELS, POL_PER_ID_PREFIXES, polKey } from '@cloneset-suite/api-types';
import type { PlanAction } from '../../src/core/plan.ts';
import { podName } from '../../src/core/pods/pod-state.ts';
import { planOperationWrite } from '../../src/reconciler/actions/operation-writes.ts';
import { cloneSet, pod, reconcileWith, templateWithImage } from './fixtures.ts';

const TS = '1767225600000000000';
const OPERATING = 'operating.podopslifecycle.kusionstack.io/cloneset';
const TYPE = 'operation-type.podopslifecycle.kusionstack.io/cloneset';
const OPERATE = 'operate.podopslifecycle.kusionstack.io/cloneset';
const UNDO = 'undo-operation-type.podopslifecycle.kusionstack.io/cloneset';
const RECORD = 'podopslifecycle.cloneset-suite.io/cloneset-operation';

type Step = { kind: 'pass' } | { kind: 'grant'; pod: number } | { kind: 'edit'; pod: number; type: string | undefined };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ kind: 'pass' }),
  fc.nat(5).map<Step>((i) => ({ kind: 'grant', pod: i })),
  fc.record({ pod: fc.nat(5), type: fc.constantFrom('scale-in', 'update', 'delete', 'Restart', undefined) }).map<Step>((e) => ({ kind: 'edit', ...e })),
);

function withChanges(p: V1Pod, labels: Record<string, string | null>, annotations: Record<string, string | null> = {}): V1Pod {
  const merge = (from: Record<string, string> | undefined, change: Record<string, string | null>) => {
    const out = { ...(from ?? {}) };
    for (const [k, v] of Object.entries(change)) {
      if (v === null) delete out[k];
      else out[k] = v;
    }
    return out;
  };
  return { ...p, metadata: { ...p.metadata, labels: merge(p.metadata?.labels, labels), annotations: merge(p.metadata?.annotations, annotations) } };
}

/** The lifecycle webhook's answer to an undo label: every label of the id goes (Kuperator's undo). */
function webhookUndo(p: V1Pod): V1Pod {
  if (p.metadata?.labels?.[UNDO] === undefined) return p;
  return withChanges(p, Object.fromEntries(POL_PER_ID_PREFIXES.map((prefix) => [polKey(prefix, POL_CLONESET_ID), null])));
}

/** The pod after the plan's action, as the shell writes it. */
function applied(p: V1Pod, a: PlanAction, seq: number): V1Pod {
  switch (a.kind) {
    case 'beginOperation':
    case 'finishOperation':
    case 'undoOperation': {
      const plan = planOperationWrite(a, p, String(BigInt(TS) + BigInt(seq)));
      if (!plan.ok) return p;
      const labels = { ...plan.write.labels.set, ...Object.fromEntries(plan.write.labels.remove.map((k) => [k, null])) };
      return webhookUndo(withChanges(p, labels, plan.write.record === undefined ? {} : { [RECORD]: plan.write.record }));
    }
    case 'inPlaceUpdate':
    case 'patchPod':
      return withChanges(p, a.labels ?? {}, a.annotations ?? {});
    default:
      return p;
  }
}

describe('hand edits of operation-type/cloneset', () => {
  it('property: no sequence of them makes the planner delete (or mark for a re-create) a pod it only meant to update in place', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('InPlaceIfPossible', 'InPlaceOnly'),
        fc.integer({ min: 1, max: 4 }),
        fc.array(stepArb, { minLength: 1, maxLength: 40 }),
        (n, type, maxUnavailable, steps) => {
          const cs = cloneSet({ replicas: n, template: templateWithImage('nginx:1'), updateStrategy: { type, maxUnavailable } });
          let pods = Array.from({ length: n }, (_, i) =>
            pod({ name: `p${i}`, id: `p${i}`, rev: 'cs-old', state: 'Normal', labels: { 'pod-template-hash': 'old', [KUSION_CONTROL_LABEL]: 'true', [POL_LABELS.serviceAvailable]: TS } }),
          );
          let seq = 0;
          for (const step of steps) {
            const at = step.kind === 'pass' ? -1 : step.pod % n;
            if (step.kind === 'grant' && pods[at]!.metadata?.labels?.[OPERATING] !== undefined) pods[at] = withChanges(pods[at]!, { [OPERATE]: TS });
            if (step.kind === 'edit') pods[at] = withChanges(pods[at]!, { [TYPE]: step.type ?? null });
            if (step.kind !== 'pass') continue;
            const plan = reconcileWith(cs, pods);
            for (const a of plan.actions) {
              expect(a.kind, JSON.stringify(a)).not.toBe('deletePod');
              expect(a.kind === 'patchPod' && a.reason === 'RecreateUpdate', JSON.stringify(a)).toBe(false);
              if (a.kind === 'inPlaceUpdate') {
                // Only an update it began, still labelled as one, granted.
                const target = pods.find((p) => podName(p) === a.name)!;
                expect(target.metadata?.labels?.[TYPE]).toBe('update');
                expect(target.metadata?.labels?.[OPERATE]).toBeDefined();
              }
            }
            pods = pods.map((p) => plan.actions.reduce((acc, a) => ('name' in a && a.name === podName(p) ? applied(acc, a, ++seq) : acc), p));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
