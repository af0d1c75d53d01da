// The PodOpsLifecycle controller (spec §1.6) and exactly the API calls it makes (deploy/ grants these).
import { createPodOpsLifecycleController, passAllStageGate } from '@cloneset-suite/podopslifecycle';
import type { ControllerRegistration } from './registry.ts';

export const podOpsLifecycleRegistration: ControllerRegistration = {
  name: 'podopslifecycle',
  enabledByDefault: true,
  permissions: [
    // Its pod informer; lifecycle labels and the available-conditions annotation (JSON patches guarded by resourceVersion).
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch', 'patch'] },
    // Services, to drop expected finalizers of Services that are gone or no longer select the pod.
    { apiGroups: [''], resources: ['services'], verbs: ['list', 'watch'] },
    // The service-ready condition.
    { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
    // Phase-change, ServiceReady, ExpectedFinalizersCleaned and InvalidLifecycle Events.
    { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  ],
  create: (d) =>
    createPodOpsLifecycleController(d.manager, {
      ...(d.namespace ? { namespace: d.namespace } : {}),
      maxConcurrentReconciles: d.maxConcurrentReconciles,
      // The transition-rule engine's gate is plugged in by the manager's wiring once it lands.
      stageGate: passAllStageGate,
      instance: d.identity,
    }),
};
