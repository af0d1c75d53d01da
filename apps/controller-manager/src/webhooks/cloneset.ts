// The CloneSet admission webhooks (cloneset.md §1.7-1.8): defaulting with a JSON patch, and the
// validation the CRD schema cannot express (selector vs template, InPlaceOnly diffs, podsToDelete
// lookups, immutable fields, deletion protection), all from api-types.
import {
  CLONESET_GVK,
  defaultCloneSet,
  fieldError,
  validateCloneSet,
  validateCloneSetDeletion,
  type CloneSet,
  type PodLookup,
} from '@cloneset-suite/api-types';
import { Resources, isNotFound, type KubeObject } from '@cloneset-suite/kube-runtime';
import {
  allowed,
  deniedForbidden,
  deniedInvalid,
  objectName,
  type AdmissionRequest,
  type AdmissionResponse,
  type ObjectIdentity,
} from './admission-review.ts';
import { createJsonPatch } from './json-patch.ts';
import type { AdmissionContext, AdmissionWebhook, RuleWithOperations, WebhookDeps } from './types.ts';

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
        ...(old ? { old } : {}),
        templateNoDefaults: deps.featureGates.TemplateNoDefaults,
      });
      return Promise.resolve(allowed(createJsonPatch(obj, defaulted)));
    },
  };
}

interface PodMeta extends KubeObject {
  metadata?: KubeObject['metadata'] & { deletionTimestamp?: string };
}

/** Looks up, through the API, the pods newly listed in podsToDelete (bounded concurrency). */
async function lookupNewPodsToDelete(
  deps: WebhookDeps,
  cs: CloneSet,
  old: CloneSet | undefined,
  ctx: AdmissionContext,
): Promise<Map<string, PodLookup | undefined>> {
  const before = new Set(old?.spec?.scaleStrategy?.podsToDelete ?? []);
  const names = [...new Set(cs.spec?.scaleStrategy?.podsToDelete ?? [])].filter((n) => typeof n === 'string' && !before.has(n));
  const found = new Map<string, PodLookup | undefined>();
  const namespace = cs.metadata?.namespace;
  if (!namespace || names.length === 0) return found;
  const pods = deps.client.resource<PodMeta>(Resources.pods);
  const queue = [...names];
  const worker = async (): Promise<void> => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      try {
        const pod = await pods.get(namespace, name, { signal: ctx.signal });
        found.set(name, {
          ...(pod.metadata?.deletionTimestamp ? { deletionTimestamp: pod.metadata.deletionTimestamp } : {}),
          ownerReferences: (pod.metadata?.ownerReferences ?? []).map((r) => ({ uid: r.uid, ...(r.controller !== undefined ? { controller: r.controller } : {}) })),
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
        found.set(name, undefined);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, names.length) }, worker));
  return found;
}

export function cloneSetValidator(deps: WebhookDeps): AdmissionWebhook {
  return {
    name: 'vcloneset.kb.io',
    type: 'validating',
    path: '/validate-apps-kruise-io-v1alpha1-cloneset',
    rules: rules(['CREATE', 'UPDATE', 'DELETE']),
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    async handle(request, ctx): Promise<AdmissionResponse> {
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
      const pods = await lookupNewPodsToDelete(deps, cs, old, ctx);
      const errs = validateCloneSet(cs, old, { getPod: (name) => pods.get(name), cloneSetShortHash: deps.featureGates.CloneSetShortHash });
      return errs.length === 0 ? allowed() : deniedInvalid(identity(request, obj), errs);
    },
  };
}
