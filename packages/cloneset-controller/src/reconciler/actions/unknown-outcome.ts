// A write whose answer never came, or came from a proxy rather than the apiserver (kube-runtime's
// writeOutcome says 'unknown'): it may have landed. Its expectation stays, so no pass plans from a
// cache that has not shown the result yet; this says so once, without failing the pass.
import { abortedByStop } from '@cloneset-suite/kube-runtime';
import { errorMessage, type ExecutionContext } from './context.ts';

export interface UnknownWrite {
  /** The Event's reason, e.g. CreatePodOutcomeUnknown. */
  reason: string;
  /** The Event's action: Create or Delete. */
  action: 'Create' | 'Delete';
  /** What was written, e.g. `pod cs-abcde` or `pvc data-cs-abcde`. */
  subject: string;
}

export function reportUnknownOutcome(ctx: ExecutionContext, err: unknown, write: UnknownWrite): void {
  const verb = write.action.toLowerCase();
  if (abortedByStop(ctx.signal)) {
    // The manager is stopping: nothing is wrong, and the next leader's cache shows whether it landed.
    ctx.logger.info({ subject: write.subject }, `${verb} of ${write.subject} cut short by shutdown; the next leader sees whether it landed`);
    return;
  }
  ctx.logger.warn({ err, subject: write.subject }, `${verb} of ${write.subject}: outcome unknown; waiting for the cache`);
  const waitFor = write.action === 'Create' ? 'it to show up before creating more' : 'the cache to show it go before planning again';
  ctx.recorder.event(ctx.cs, 'Warning', write.reason, write.action, `no answer to the ${verb} of ${write.subject}: ${errorMessage(err)}; waiting for ${waitFor}`);
}
