// PodTransitionRule admission defaulting, pure. failurePolicy defaults to Fail, not to Kuperator's
// Ignore: the suite honours failurePolicy with Fail as the default (README, PodTransitionRule),
// where Kuperator defaults Ignore but never reads it.
import type { PodTransitionRule, WebhookFailurePolicy } from './schema.ts';

export const PTR_DEFAULT_POLL_INTERVAL_SECONDS = 5;
export const PTR_DEFAULT_POLL_TIMEOUT_SECONDS = 60;
export const PTR_DEFAULT_FAILURE_POLICY: WebhookFailurePolicy = 'Fail';

export function defaultPodTransitionRule(rule: PodTransitionRule): PodTransitionRule {
  const ptr = structuredClone(rule);
  // Admission sees raw JSON: tolerate missing parts and leave them for validation to report.
  const spec = ptr.spec as PodTransitionRule['spec'] | undefined;
  for (const r of spec?.rules ?? []) {
    const webhook = r.webhook;
    if (!webhook) continue;
    webhook.failurePolicy ??= PTR_DEFAULT_FAILURE_POLICY;
    const clientConfig = webhook.clientConfig as typeof webhook.clientConfig | undefined;
    const poll = clientConfig?.poll;
    if (poll) {
      poll.intervalSeconds ??= PTR_DEFAULT_POLL_INTERVAL_SECONDS;
      poll.timeoutSeconds ??= PTR_DEFAULT_POLL_TIMEOUT_SECONDS;
    }
  }
  return ptr;
}
