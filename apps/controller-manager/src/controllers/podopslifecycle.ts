// The PodOpsLifecycle controller (README, PodOpsLifecycle) and exactly the API calls it makes (deploy/ grants these).
import { PODOPSLIFECYCLE_CONTROLLER_NAME, createPodOpsLifecycleController, passAllStageGate } from '@cloneset-suite/podopslifecycle';
import { TRANSITION_RULE_CONTROLLER_NAME, createTransitionRuleStageGate } from '@cloneset-suite/transition-rule';
import type { ControllerRegistration } from './registration.ts';

export const podOpsLifecycleRegistration: ControllerRegistration = {
  name: PODOPSLIFECYCLE_CONTROLLER_NAME,
  enabledByDefault: true,
  permissions: [
    // Its pod informer; lifecycle labels and the available-conditions annotation (JSON patches guarded by resourceVersion).
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch', 'patch'] },
    // Services, to drop expected finalizers of Services that are gone or no longer select the pod.
    { apiGroups: [''], resources: ['services'], verbs: ['list', 'watch'] },
    // The StageGate reads PodTransitionRule decisions (status.details) from the shared cache.
    { apiGroups: ['apps.kusionstack.io'], resources: ['podtransitionrules'], verbs: ['list', 'watch'] },
    // The service-ready condition.
    { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
    // Phase-change, ServiceReady, ExpectedFinalizersCleaned and InvalidLifecycle Events.
    { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  ],
  create: (d) =>
    createPodOpsLifecycleController(d.manager, {
      namespace: d.namespace,
      maxConcurrentReconciles: d.maxConcurrentReconciles,
      // PreCheck/PostCheck pass when every PodTransitionRule selecting the pod passes;
      // with the rule controller turned off nothing would keep their decisions current, so every
      // pod passes instead of waiting on stale ones.
      stageGate: d.enabledControllers.includes(TRANSITION_RULE_CONTROLLER_NAME)
        ? createTransitionRuleStageGate(d.manager, d.namespace ? { namespace: d.namespace } : {})
        : passAllStageGate,
      instance: d.identity,
    }),
};
