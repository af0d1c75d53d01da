// `kubectl cloneset plan -o json` and the controller say the same waits: the same objects go
// through the plugin's report and through the controller's status computation (the condition
// messages it writes), and every condition message is exactly the plan's waits on it, joined.
import { FEATURE_GATE_DEFAULTS } from '@cloneset-suite/cloneset-controller';
import { describe, expect, it } from 'vitest';
// The controller's own status path: what the reconciler writes after a pass (test-only reach into the package).
import { planReconcile, statusInputFor } from '../../../../packages/cloneset-controller/src/core/reconcile-plan.ts';
import { computeStatus } from '../../../../packages/cloneset-controller/src/core/status/status.ts';
import { planReport, type ReportWait } from '../../src/core/plan-report.ts';
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { NOW, UID, cloneSet, inputOf, pod, revisionOf, rollout } from './plan-fixtures.ts';

const gates = { ...FEATURE_GATE_DEFAULTS };
const nanos = `${BigInt(NOW - 30_000) * 1_000_000n}`;
const heldInPreCheck = {
  labels: {
    'operating.podopslifecycle.kusionstack.io/cloneset': nanos,
    'operation-type.podopslifecycle.kusionstack.io/cloneset': 'update',
    'pre-check.podopslifecycle.kusionstack.io/cloneset': nanos,
  },
  annotations: { 'detail.podtransitionrule.kusionstack.io/change-window': JSON.stringify({ stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'approved', reason: 'label approved=yes is missing' }] }) },
};
const hold = { 'example.com/hold': 'true' };

/** One replica to create whose instance id a terminating pod still holds (with its claim): a FailedScale wait. */
function idHeldByTerminatingPod() {
  const cs = cloneSet({ replicas: 1, withClaims: true });
  const revision = revisionOf(cs);
  const holder = pod('web-zzzzz', { revision: revision.metadata!.name!, deleting: true });
  const claim: V1PersistentVolumeClaim = {
    metadata: { name: 'data-web-zzzzz', labels: { 'apps.kruise.io/cloneset-instance-id': 'zzzzz' }, ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid: UID }] },
  };
  const input = inputOf(cs, [holder], [revision]);
  return { input: () => ({ ...input, pvcs: [claim], podNamed: (n: string) => (n === 'web-zzzzz' ? holder : undefined) }) };
}

const cases = {
  'a terminating pod holding the instance id a new pod needs': idHeldByTerminatingPod(),
  'a PodTransitionRule holding a pod in PreCheck': rollout({ controlled: true, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 }, pod: (i) => (i === 1 ? heldInPreCheck : {}) }),
  'a lifecycle hook holding a pod in PreparingUpdate': rollout({
    updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 },
    lifecycle: { inPlaceUpdate: { labelsHandler: hold } },
    pod: (i) => ({ labels: { ...hold, ...(i === 3 ? { 'lifecycle.apps.kruise.io/state': 'PreparingUpdate' } : {}) } }),
  }),
};

describe('plan -o json and the controller\'s conditions', () => {
  it.each(Object.entries(cases))('%s: each condition says exactly the plan\'s waits on it', (_name, r) => {
    const input = r.input();
    const waits = (JSON.parse(JSON.stringify(planReport(input, { gates }))) as { waits: ReportWait[] }).waits;
    const plan = planReconcile(input);
    const { status } = computeStatus(statusInputFor(plan, [], NOW));
    const said = (type: string): string | undefined => status.conditions?.find((c) => c.type === type && c.status === 'True')?.message;
    expect(waits.some((w) => w.condition !== undefined)).toBe(true);
    for (const type of ['PodsHeld', 'FailedScale', 'FailedUpdate']) {
      const onIt = waits.filter((w) => w.condition === type).map((w) => w.message);
      expect(said(type), type).toBe(onIt.length > 0 ? onIt.join('; ') : undefined);
    }
  });
});
