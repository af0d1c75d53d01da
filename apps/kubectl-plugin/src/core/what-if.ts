// The same pass planned under another update strategy: resuming a paused CloneSet. The planner
// is pure, so a what-if is one more call with the CloneSet changed, nothing else.
import type { ReconcileInput } from '@cloneset-suite/cloneset-controller';

type UpdateStrategy = NonNullable<ReconcileInput['cs']['spec']['updateStrategy']>;

export function withUpdateStrategy(input: ReconcileInput, change: Partial<UpdateStrategy>): ReconcileInput {
  const cs = input.cs;
  return { ...input, cs: { ...cs, spec: { ...cs.spec, updateStrategy: { ...(cs.spec.updateStrategy ?? {}), ...change } } } };
}
