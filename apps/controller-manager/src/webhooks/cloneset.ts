// The CloneSet admission webhooks (README, Admission webhooks): defaulting with a JSON patch, and the
// validation the CRD schema cannot express (selector vs template, InPlaceOnly diffs, podsToDelete
// lookups, immutable fields, deletion protection), all from api-types.
import {
  CLONESET_GVK,
  MAX_PODS_TO_DELETE,
  defaultCloneSet,
  fieldError,
  validateCloneSet,
  validateCloneSetDeletion,
  validateScaleReplicas,
  type CloneSet,
  type PodLookup,
} from '@cloneset-suite/api-types';
import {
  allowed,
  deniedForbidden,
  deniedInvalid,
  errored,
  objectName,
  type AdmissionRequest,
  type AdmissionResponse,
  type ObjectIdentity,
} from './admission-review.ts';
import { createJsonPatch } from './json-patch.ts';
import type { AdmissionWebhook, PodCache, RuleWithOperations, WebhookDeps } from './types.ts';

const GROUP = CLONESET_GVK.group;

const rules = (operations: RuleWithOperations['operations']): RuleWithOperations[] => [
  { operations, apiGroups: [GROUP], apiVersions: [CLONESET_GVK.version], resources: [CLONESET_GVK.plural], scope: 'Namespaced' },
];

function identity(request: AdmissionRequest, obj: unknown): ObjectIdentity {
  return { group: GROUP, kind: CLONESET_GVK.kind, name: objectName(request, obj) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function cloneSetDefaulter(deps: WebhookDeps): AdmissionWebhook {
  return {
    name: 'mcloneset.kb.io',
    type: 'mutating',
    path: '/mutate-apps-kruise-io-v1alpha1-cloneset',
    rules: rules(['CREATE', 'UPDATE']),
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    handle(request) {
      const obj = request.object;
      if (!isObject(obj)) return Promise.resolve(deniedInvalid(identity(request, obj), [fieldError.required('spec', 'the request has no object')]));
      const old = request.operation === 'UPDATE' && isObject(request.oldObject) ? (request.oldObject as unknown as CloneSet) : undefined;
      const defaulted = defaultCloneSet(obj as unknown as CloneSet, {
        old,
        templateNoDefaults: deps.featureGates.TemplateNoDefaults,
      });
      return Promise.resolve(allowed(createJsonPatch(obj, defaulted)));
    },
  };
}

/**
 * The pods newly listed in podsToDelete, from the cache (the list is bounded by
 * MAX_PODS_TO_DELETE first). Only the CloneSet's own namespace is ever looked at.
 */
function lookupNewPodsToDelete(pods: PodCache, cs: CloneSet, old: CloneSet | undefined): Map<string, PodLookup | undefined> {
  const names = cs.spec?.scaleStrategy?.podsToDelete ?? [];
  const found = new Map<string, PodLookup | undefined>();
  const namespace = cs.metadata?.namespace;
  if (!namespace || names.length > MAX_PODS_TO_DELETE) return found;
  const before = new Set(old?.spec?.scaleStrategy?.podsToDelete ?? []);
  for (const name of names) {
    if (typeof name === 'string' && !before.has(name) && !found.has(name)) found.set(name, pods.get(namespace, name));
  }
  return found;
}

function addsPodsToDelete(cs: CloneSet, old: CloneSet | undefined): boolean {
  const before = new Set(old?.spec?.scaleStrategy?.podsToDelete ?? []);
  return (cs.spec?.scaleStrategy?.podsToDelete ?? []).some((n) => !before.has(n));
}

export function cloneSetValidator(deps: WebhookDeps): AdmissionWebhook {
  return {
    name: 'vcloneset.kb.io',
    type: 'validating',
    path: '/validate-apps-kruise-io-v1alpha1-cloneset',
    // DELETE only under ResourcesDeletionProtection: with failurePolicy Fail, a registered DELETE
    // would make every CloneSet (and every namespace holding one) undeletable while the manager
    // is down, for a check that allows everything when the gate is off.
    rules: rules(deps.featureGates.ResourcesDeletionProtection ? ['CREATE', 'UPDATE', 'DELETE'] : ['CREATE', 'UPDATE']),
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    handle: (request) => Promise.resolve(validateCloneSetRequest(deps, request)),
  };
}

function validateCloneSetRequest(deps: WebhookDeps, request: AdmissionRequest): AdmissionResponse {
  if (request.operation === 'DELETE') {
    const old = request.oldObject;
    if (!isObject(old)) return allowed();
    const errs = validateCloneSetDeletion(old as unknown as CloneSet, { resourcesDeletionProtection: deps.featureGates.ResourcesDeletionProtection });
    return errs.length === 0 ? allowed() : deniedForbidden(identity(request, old), errs);
  }
  const obj = request.object;
  if (!isObject(obj)) return deniedInvalid(identity(request, obj), [fieldError.required('spec', 'the request has no object')]);
  const cs = obj as unknown as CloneSet;
  const old = request.operation === 'UPDATE' && isObject(request.oldObject) ? (request.oldObject as unknown as CloneSet) : undefined;
  if (addsPodsToDelete(cs, old) && !deps.pods.hasSynced()) {
    return errored(503, 'ServiceUnavailable', 'the pod cache is not synced yet: podsToDelete cannot be checked; retry shortly');
  }
  const pods = lookupNewPodsToDelete(deps.pods, cs, old);
  const errs = validateCloneSet(cs, old, { getPod: (name) => pods.get(name), cloneSetShortHash: deps.featureGates.CloneSetShortHash });
  return errs.length === 0 ? allowed() : deniedInvalid(identity(request, obj), errs);
}

/**
 * `kubectl scale` (and any HPA) writes clonesets/scale, which the CloneSet webhooks never see:
 * the same replicas rules are checked here, against the autoscaling/v1 Scale it carries.
 */
export function cloneSetScaleValidator(_deps: WebhookDeps): AdmissionWebhook {
  return {
    name: 'vcloneset-scale.kb.io',
    type: 'validating',
    path: '/validate-apps-kruise-io-v1alpha1-cloneset-scale',
    rules: [{ operations: ['UPDATE'], apiGroups: [GROUP], apiVersions: [CLONESET_GVK.version], resources: [`${CLONESET_GVK.plural}/scale`], scope: 'Namespaced' }],
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    handle(request) {
      const replicasOf = (o: unknown): unknown => (isObject(o) && isObject(o.spec) ? o.spec.replicas : undefined);
      const errs = validateScaleReplicas(replicasOf(request.object), replicasOf(request.oldObject));
      return Promise.resolve(errs.length === 0 ? allowed() : deniedInvalid(identity(request, request.object), errs));
    },
  };
}
