// Public face of the CloneSet controller: the controller the manager wires, and the feature
// gates it reads. Tests inside this package import the core from its own modules.
export { createCloneSetController, CLONESET_CONTROLLER_NAME, type CloneSetControllerOptions } from './reconciler/controller.ts';
export type { FeatureGates } from './core/keys.ts';
