// The same pass planned under another update strategy: resuming a paused CloneSet, or with no
// maxUnavailable budget to tell which pods only the budget holds back. The planner is pure, so
// a what-if is one more call with the CloneSet changed, nothing else.
import { planReconcile, type ReconcileInput, type ReconcilePlan } from '@cloneset-suite/cloneset-controller';

type UpdateStrategy = NonNullable<ReconcileInput['cs']['spec']['updateStrategy']>;

export function withUpdateStrategy(input: ReconcileInput, change: Partial<UpdateStrategy>): ReconcileInput {
  const cs = input.cs;
  return { ...input, cs: { ...cs, spec: { ...cs.spec, updateStrategy: { ...(cs.spec.updateStrategy ?? {}), ...change } } } };
}

/** The pass with every pod allowed to be unavailable at once. */
export function planWithoutBudget(input: ReconcileInput): ReconcilePlan {
  return planReconcile(withUpdateStrategy(input, { maxUnavailable: '100%' }));
}
