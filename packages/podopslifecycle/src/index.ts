// Public face of @cloneset-suite/podopslifecycle.
// Label protocol and pod-level predicates.
export { readLifecycle, typeOf, phaseOf, podPhase, lacksOperationType, type LifecycleView, type IdLabels, type IdPhase, type PodPhase, type Labels } from './core/protocol.ts';
export { expectedFinalizers, expectedFinalizersSatisfied, isReadyToOperate, hasServiceReadyGate, type Pod } from './core/pod-state.ts';
export { effectiveChanges, applyChanges, labelPatchOps, type LabelChanges } from './core/label-patch.ts';
// The admission functions (served by the controller-manager at /mutate-pod and /validate-pod).
export { mutatePod, type AdmissionOperation, type CreateTraffic } from './core/mutate.ts';
export { validatePod, requestViolations, violationMessage, VALIDATION_MESSAGE_PREFIX, type LifecycleViolation } from './core/validate.ts';
// The lifecycle controller: its planner, the StageGate port and the shell.
export { planLifecycle, type LifecyclePlan, type LifecycleWrite, type PlannedEvent } from './core/lifecycle-plan.ts';
export { observePod, phaseChangeEvents, type PodObservation } from './core/phase-events.ts';
export { passAllStageGate, type StageGate, type StageDecision, type LifecycleStage } from './core/stage-gate.ts';
export { createPodOpsLifecycleController, PODOPSLIFECYCLE_CONTROLLER_NAME, type PodOpsLifecycleControllerOptions } from './reconciler/controller.ts';
// The operation SDK for operating controllers.
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
export { planTraffic, selectingServices, syncedAvailableConditions, type TrafficPlan, type TrafficService, type PodEndpoint } from './core/traffic-plan.ts';
export { createTrafficCooperationController, TRAFFIC_COOPERATION_CONTROLLER_NAME, type TrafficCooperationControllerOptions } from './reconciler/traffic-controller.ts';
export { trafficServicesIn, type ServiceObject } from './reconciler/traffic-sources.ts';
