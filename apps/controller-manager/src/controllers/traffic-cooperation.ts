// The built-in traffic cooperation: holds prot.podopslifecycle.kusionstack.io/endpointslice
// on a controlled pod while an EndpointSlice of a Service selecting it lists it as ready, so no
// lifecycle operation starts before traffic is off and none completes before it is back on.
import { Histogram } from 'prom-client';
import { createTrafficCooperationController, TRAFFIC_COOPERATION_CONTROLLER_NAME } from '@cloneset-suite/podopslifecycle';
import type { ControllerRegistration } from './registration.ts';

export const trafficCooperationRegistration: ControllerRegistration = {
  name: TRAFFIC_COOPERATION_CONTROLLER_NAME,
  enabledByDefault: true,
  permissions: [
    // Its pod informer; the finalizer and the available-conditions entries (JSON patches guarded by resourceVersion).
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch', 'patch'] },
    // Which Services select a pod (also read by the pod mutating webhook to add the entries at creation).
    { apiGroups: [''], resources: ['services'], verbs: ['list', 'watch'] },
    // Whether an EndpointSlice lists the pod as ready: traffic on or off.
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
    // TrafficOn / TrafficOff Events on the pod.
    { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  ],
  create: (d) => {
    const drain = new Histogram({
      name: 'cloneset_suite_traffic_drain_seconds',
      help: 'Time from a controlled pod starting to drain (not Ready or terminating) to no EndpointSlice listing it as ready',
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers: [d.registry],
    });
    createTrafficCooperationController(d.manager, {
      namespace: d.namespace,
      maxConcurrentReconciles: d.maxConcurrentReconciles,
      instance: d.identity,
      onDrained: (seconds) => drain.observe(seconds),
    });
  },
};
