// The built-in traffic cooperation's shell: for each controlled pod (or any pod still holding
// its finalizer), as the builder hands it from the cache once the cache shows our last write, read the Services of its namespace and the EndpointSlice endpoints naming it
// from the shared caches, ask planTraffic, execute its one write and record its Events.
import { POL_ANNOTATIONS, POL_TRAFFIC_FINALIZER, isKusionControlled } from '@cloneset-suite/api-types';
import {
  NamespaceIndex,
  ReconcileError,
  Resources,
  done,
  jsonPatch,
  jsonPointerEscape,
  keyOf,
  type Controller,
  type DeepReadonly,
  type EventRecorder,
  type JsonPatchOperation,
  type KubeObject,
  type Manager,
  type ReconcileAction,
  type ReconcileContext,
  type ReconcilerParts,
  type ResourceVersionExpectations,
  type CachedSource,
} from '@cloneset-suite/kube-runtime';
import type { Pod } from '../core/pod-state.ts';
import { serviceSelects } from '../core/service-selector.ts';
import { isDraining, planTraffic, type TrafficWrite } from '../core/traffic-plan.ts';
import { SLICE_POD_INDEX, endpointsOfPod, slicePodKeys, trafficServicesIn, type EndpointSliceObject, type ServiceObject } from './traffic-sources.ts';

export const TRAFFIC_COOPERATION_CONTROLLER_NAME = 'endpointslice-cooperation';

export interface TrafficCooperationControllerOptions {
  /** Watch one namespace; all when undefined. */
  namespace?: string;
  maxConcurrentReconciles?: number;
  /** Identity for Events' reportingInstance. */
  instance?: string;
  /** Called with the seconds a drain took (finalizer removed), for a histogram. */
  onDrained?: (seconds: number) => void;
}

type PodObject = Pod & KubeObject;

const holdsFinalizer = (pod: DeepReadonly<KubeObject>): boolean => (pod.metadata?.finalizers ?? []).includes(POL_TRAFFIC_FINALIZER);

/** The JSON patch operations of one planned write (the whole finalizer list: the patch is guarded by the pod's resourceVersion). */
export function trafficPatchOps(pod: Pod, write: TrafficWrite): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  const finalizers = pod.metadata?.finalizers ?? [];
  if (write.finalizer === 'add') ops.push({ op: 'add', path: '/metadata/finalizers', value: [...finalizers, POL_TRAFFIC_FINALIZER] });
  if (write.finalizer === 'remove') ops.push({ op: 'add', path: '/metadata/finalizers', value: finalizers.filter((f) => f !== POL_TRAFFIC_FINALIZER) });
  if (write.availableConditions !== undefined) {
    if (!pod.metadata?.annotations) ops.push({ op: 'add', path: '/metadata/annotations', value: {} });
    ops.push({ op: 'add', path: `/metadata/annotations/${jsonPointerEscape(POL_ANNOTATIONS.availableConditions)}`, value: write.availableConditions });
  }
  return ops;
}

const concerned = (pod: DeepReadonly<KubeObject>): boolean => isKusionControlled(pod.metadata?.labels) || holdsFinalizer(pod);

export function createTrafficCooperationController(manager: Manager, options: TrafficCooperationControllerOptions = {}): Controller {
  const scope = { namespace: options.namespace };
  const pods = manager.informers.informerFor<KubeObject>(Resources.pods, scope);
  const services = manager.informers.informerFor<ServiceObject>(Resources.services, scope);
  const slices = manager.informers.informerFor<EndpointSliceObject>(Resources.endpointSlices, { ...scope, indexers: { [SLICE_POD_INDEX]: slicePodKeys } });
  return (
    manager
      .controller(TRAFFIC_COOPERATION_CONTROLLER_NAME, { maxConcurrentReconciles: options.maxConcurrentReconciles })
      .for(pods, { when: concerned })
      // A slice names its pods; its old and new versions both reach the mapper, so a pod that left it
      // is seen too. Pods not in the cache yet are reconciled when they arrive.
      .watches(slices, (slice) =>
        slicePodKeys(slice).filter((key) => {
          const pod = pods.getByKey(key);
          return pod !== undefined && concerned(pod);
        }),
      )
      // A Service change concerns the pods it selects (old and new selector) and those that still name it or hold our finalizer.
      .watches(services, (svc) => {
        const entry = `"Service/${svc.metadata?.namespace ?? ''}/${svc.metadata?.name ?? ''}"`;
        return pods
          .byIndex(NamespaceIndex, svc.metadata?.namespace ?? '')
          .filter((p) => concerned(p) && (holdsFinalizer(p) || serviceSelects(svc.spec?.selector, p.metadata?.labels) || (p.metadata?.annotations?.[POL_ANNOTATIONS.availableConditions] ?? '').includes(entry)))
          .map(keyOf);
      })
      .tracksOwnWrites(pods)
      .recordsEvents('endpointslice-cooperation', options.instance ?? 'cloneset-suite')
      .complete((c) => trafficReconciler({ manager, services, slices, versions: c.ownWrites(pods), recorder: c.recorder, onDrained: options.onDrained }))
  );
}

interface TrafficReconcilerDeps {
  manager: Manager;
  services: CachedSource<ServiceObject>;
  slices: CachedSource<EndpointSliceObject>;
  versions: ResourceVersionExpectations;
  recorder: EventRecorder;
  onDrained: ((seconds: number) => void) | undefined;
}

function trafficReconciler({ manager, services, slices, versions, recorder, onDrained }: TrafficReconcilerDeps): ReconcilerParts {
  const client = manager.client.resource<PodObject>(Resources.pods);
  // When each pod was first seen draining (ms), for "traffic off ... after N ms".
  const drainStarts = new Map<string, number>();

  // The builder reconciles only pods it is concerned with (for(.., { when: concerned })) and forgets the others.
  const reconcile = async (cached: DeepReadonly<KubeObject>, ctx: ReconcileContext): Promise<ReconcileAction> => {
    const key = ctx.key;
    const pod = cached as unknown as PodObject;
    const namespace = pod.metadata?.namespace ?? '';
    const nowMs = manager.clock.now();
    if (isDraining(pod)) {
      if (!drainStarts.has(key)) drainStarts.set(key, nowMs);
    } else drainStarts.delete(key);
    const plan = planTraffic({
      pod,
      services: trafficServicesIn(services, namespace),
      endpoints: endpointsOfPod(slices, namespace, pod.metadata?.name ?? ''),
      nowMs,
      drainStartedMs: drainStarts.get(key),
    });
    ctx.logger.debug({ finalizer: plan.write?.finalizer, availableConditions: plan.write?.availableConditions, why: plan.why }, 'planned');
    if (!plan.write) return done();
    try {
      const updated = await client.patch(namespace, pod.metadata?.name ?? '', jsonPatch(trafficPatchOps(pod, plan.write), { resourceVersion: pod.metadata?.resourceVersion ?? '' }), { signal: ctx.signal });
      versions.expect(key, updated.metadata?.resourceVersion);
    } catch (err) {
      // The next attempt re-plans from a fresher cache; a lost race records nothing.
      throw new ReconcileError(`${plan.why}: ${(err as Error).message}`, { causes: [err], event: { regarding: pod, reason: 'TrafficCooperationFailed', action: 'Update' } });
    }
    for (const e of plan.events) recorder.event(pod, e.type, e.reason, e.action, e.note);
    if (plan.drainedMs !== undefined) {
      onDrained?.(plan.drainedMs / 1000);
      drainStarts.delete(key);
    }
    return done();
  };

  return { reconcile, forget: (key) => drainStarts.delete(key) };
}
