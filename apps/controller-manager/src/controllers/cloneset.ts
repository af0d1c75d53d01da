// The CloneSet controller and exactly the API calls it makes (deploy/ grants these).
import { CLONESET_CONTROLLER_NAME, createCloneSetController, type FeatureGates as CloneSetGates } from '@cloneset-suite/cloneset-controller';
import type { ControllerRegistration } from './registration.ts';

export const cloneSetRegistration: ControllerRegistration = {
  name: CLONESET_CONTROLLER_NAME,
  enabledByDefault: true,
  permissions: [
    // Its informers, and the podsToDelete clean-up (a JSON patch of the spec).
    { apiGroups: ['apps.kruise.io'], resources: ['clonesets'], verbs: ['get', 'list', 'watch', 'patch'] },
    { apiGroups: ['apps.kruise.io'], resources: ['clonesets/status'], verbs: ['patch'] },
    // Its pods, PVCs and revisions name the CloneSet (and a re-owned PVC its pod) with
    // blockOwnerDeletion: true, which the OwnerReferencesPermissionEnforcement admission plugin
    // refuses unless the writer may update the owner's finalizers (OpenKruise grants the first).
    { apiGroups: ['apps.kruise.io'], resources: ['clonesets/finalizers'], verbs: ['update'] },
    { apiGroups: [''], resources: ['pods/finalizers'], verbs: ['update'] },
    // Scale and update: create, delete, relabel and update pods in place; readiness-gate conditions.
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch', 'create', 'delete', 'patch'] },
    { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
    // In-place resize of cpu and memory (InPlaceWorkloadVerticalScaling).
    { apiGroups: [''], resources: ['pods/resize'], verbs: ['patch'] },
    // volumeClaimTemplates: create before the pod, delete with it, re-own on disablePVCReuse.
    { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['list', 'watch', 'create', 'delete', 'patch'] },
    // Revisions (ControllerRevisions, as OpenKruise's CloneSet keeps them): create, bump .revision on rollback, truncate history.
    { apiGroups: ['apps'], resources: ['controllerrevisions'], verbs: ['list', 'watch', 'create', 'patch', 'delete'] },
    // Same-node and topology spread when choosing pods to delete (OpenKruise's scale-in order).
    { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
    // Image pre-download (gate PreDownloadImageForInPlaceUpdate, when the ImagePullJob CRD is served):
    // create the jobs; once a rollout completes, get the ones named after the kept revisions
    // and delete those it owns (never a list in a reconcile).
    { apiGroups: ['apps.kruise.io'], resources: ['imagepulljobs'], verbs: ['get', 'create', 'delete'] },
    // Events, with repeats folded into a series update.
    { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  ],
  create: (d) =>
    createCloneSetController(d.manager, {
      namespace: d.namespace,
      maxConcurrentReconciles: d.maxConcurrentReconciles,
      // Compile-time check that the manager's gate set carries the gates the core reads.
      featureGates: d.featureGates satisfies Required<Omit<CloneSetGates, 'CloneSetScalingExcludePreparingDelete'>>,
      instance: d.identity,
      resizeDeferredTimeoutMs: d.config.inPlaceResizeDeferredTimeoutMs,
    }),
};
