// The PodTransitionRule controller and exactly the API calls it makes (deploy/ grants these).
import { TRANSITION_RULE_CONTROLLER_NAME, WebhookClient, createTransitionRuleController } from '@cloneset-suite/transition-rule';
import { timedWebhookCaller, webhookCallHistogram } from '../metrics/webhook-calls.ts';
import type { ManagerConfig } from '../config/flags.ts';
import type { ControllerRegistration } from './registration.ts';

export const transitionRuleRegistration: ControllerRegistration = {
  name: TRANSITION_RULE_CONTROLLER_NAME,
  enabledByDefault: true,
  permissions: [
    // Its informer; the protection finalizer is added and removed with a JSON patch.
    { apiGroups: ['apps.kusionstack.io'], resources: ['podtransitionrules'], verbs: ['list', 'watch', 'patch'] },
    { apiGroups: ['apps.kusionstack.io'], resources: ['podtransitionrules/status'], verbs: ['patch'] },
    // Selected pods: read from the cache; the detail annotation is a merge patch.
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch', 'patch'] },
    // The pods' CloneSets, from the cache: availablePolicy counts their missing replicas.
    { apiGroups: ['apps.kruise.io'], resources: ['clonesets'], verbs: ['list', 'watch'] },
    // WebhookFailureIgnored and rule errors.
    { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  ],
  create: (d) => {
    const webhook = {
      timeoutMs: d.config.transitionRuleWebhookTimeoutMs,
      allowedOrigins: d.config.transitionRuleWebhookAllowedPrefixes,
      allowAddresses: transitionRuleAllowAddresses(d.config),
      privateCidrs: d.config.transitionRuleWebhookPrivateCidrs,
      maxConcurrentCalls: d.config.transitionRuleWebhookMaxConcurrentCalls,
      maxConcurrentCallsPerNamespace: d.config.transitionRuleWebhookMaxConcurrentCallsPerNamespace,
    };
    createTransitionRuleController(d.manager, {
      namespace: d.namespace,
      maxConcurrentReconciles: d.maxConcurrentReconciles,
      instance: d.identity,
      caller: timedWebhookCaller(new WebhookClient(webhook), webhookCallHistogram(d.manager.metrics.registry)),
      // A write budget of its own: a namespace's rules cannot spend the CloneSet controller's.
      client: d.manager.clientWithLimits({ qps: d.config.transitionRuleKubeApiQps, burst: d.config.transitionRuleKubeApiBurst, userAgentSuffix: TRANSITION_RULE_CONTROLLER_NAME }),
    });
  },
};

/** Address classes webhook calls (and the URLs admission accepts) may reach: the list, plus link-local by its own flag. */
export function transitionRuleAllowAddresses(config: Pick<ManagerConfig, 'transitionRuleWebhookAllowAddresses' | 'transitionRuleWebhookAllowLinkLocal'>): string[] {
  return [...config.transitionRuleWebhookAllowAddresses, ...(config.transitionRuleWebhookAllowLinkLocal ? ['link-local'] : [])];
}
