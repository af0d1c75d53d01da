// Public face of @cloneset-suite/podopslifecycle: what other packages use, and the operation SDK.
// Label protocol and pod-level predicates.
export { readLifecycle, typeOf, phaseOf, lacksOperationType, type PodPhase } from './core/protocol.ts';
export type { Pod } from './core/pod-state.ts';
export { labelPatchOps, type LabelChanges } from './core/label-patch.ts';
// The admission functions (served by the controller-manager at /mutate-pod and /validate-pod).
export { mutatePod } from './core/mutate.ts';
export { validatePod, requestViolations, violationMessage, type LifecycleViolation } from './core/validate.ts';
// The lifecycle controller and its default StageGate.
export { passAllStageGate } from './core/stage-gate.ts';
export { createPodOpsLifecycleController, PODOPSLIFECYCLE_CONTROLLER_NAME } from './reconciler/controller.ts';
// The operation SDK for operating controllers, in this repository and outside it (README).
export {
  isDuringOps,
  allowOps,
  planBegin,
  planFinish,
  planUndo,
  needsCleaningBeforeBegin,
  preparingToDeleteHook,
  type OperationAdapter,
  type SdkPlan,
  type AllowOpsResult,
} from './core/sdk.ts';
export { OpsLifecycleClient, OpsLifecycleError, type OpsLifecycleClientOptions } from './reconciler/ops-client.ts';
// The built-in traffic cooperation: EndpointSlices of the Services selecting a controlled pod.
export type { TrafficService } from './core/traffic-plan.ts';
export { createTrafficCooperationController, TRAFFIC_COOPERATION_CONTROLLER_NAME } from './reconciler/traffic-controller.ts';
export { trafficServicesIn, type ServiceObject } from './reconciler/traffic-sources.ts';
