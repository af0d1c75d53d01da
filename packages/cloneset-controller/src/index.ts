// Public face of the CloneSet controller: the controller the manager wires, the feature gates
// it reads, and revision reading for kubectl-cloneset. Tests inside this package import the
// core from its own modules.
export { createCloneSetController, CLONESET_CONTROLLER_NAME, type CloneSetControllerOptions } from './reconciler/controller.ts';
export type { FeatureGates } from './core/keys.ts';
// How a ControllerRevision's template is read, compared and ordered: shared with
// kubectl-cloneset (rollout history and undo), so both agree on revision identity.
export { sortRevisions, templateOfRevision, templatesEqual } from './core/revisions.ts';
