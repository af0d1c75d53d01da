// Public face of the CloneSet controller: the controller the manager wires, the feature gates
// it reads, its planner, and revision reading for kubectl-cloneset. Tests inside this package
// import the core from its own modules.
export { createCloneSetController, CLONESET_CONTROLLER_NAME } from './reconciler/controller.ts';
export type { FeatureGates } from './core/keys.ts';
// The --feature-gates table (names and defaults), read by the manager and by kubectl-cloneset plan.
export { FEATURE_GATE_DEFAULTS, FEATURE_GATE_NAMES, type FeatureGateName } from './core/feature-gate-defaults.ts';
// One pass's decisions as data, from the objects a reconcile reads (the pure core the reconciler
// calls): for tools that show what the controller would do, and the bench that times it.
export { planReconcile, planReconcileStages, describePlan, type ReconcileInput, type ReconcilePlan } from './core/reconcile-plan.ts';
// The same input built from listed objects, as kubectl-cloneset plan reads them.
export { reconcileInputOf, type ClusterReads } from './listed-input.ts';
// Why a pass waits, as data and in the controller's words (the conditions, Events and debug line
// say them so): kubectl-cloneset plan shows the very list the controller acts on.
export type { Wait, WaitCondition } from './core/wait.ts';
export { conditionOf } from './core/wait.ts';
export { waitMessage } from './core/waits/wait-text.ts';
export type { PlanError } from './core/plan.ts';
// status.expectedUpdatedReplicas as the controller computes it (kubectl-cloneset rollout status).
export { expectedUpdatedReplicas } from './core/status/expected-updated.ts';
// How a ControllerRevision's template is read, compared and ordered: shared with
// kubectl-cloneset (rollout history and undo), so both agree on revision identity.
export { sortRevisions, templateOfRevision, templatesEqual } from './core/revisions/revisions.ts';
