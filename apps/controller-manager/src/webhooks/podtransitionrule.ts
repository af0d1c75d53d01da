// The PodTransitionRule admission webhooks: api-types defaulting and validation, plus the
// outbound-URL allow-list (decisions.md, our choices 7-8): admission checks a webhook URL's
// syntax and prefix, never dials it.
import {
  PODTRANSITIONRULE_GVK,
  defaultPodTransitionRule,
  fieldError,
  validatePodTransitionRule,
  type FieldError,
  type PodTransitionRule,
} from '@cloneset-suite/api-types';
import { allowed, deniedForbidden, deniedInvalid, objectName, type AdmissionRequest, type ObjectIdentity } from './admission-review.ts';
import { createJsonPatch } from './json-patch.ts';
import type { AdmissionWebhook, RuleWithOperations, WebhookDeps } from './types.ts';

const GROUP = PODTRANSITIONRULE_GVK.group;

const rules: RuleWithOperations[] = [
  {
    operations: ['CREATE', 'UPDATE'],
    apiGroups: [GROUP],
    apiVersions: [PODTRANSITIONRULE_GVK.version],
    resources: [PODTRANSITIONRULE_GVK.plural],
    scope: 'Namespaced',
  },
];

function identity(request: AdmissionRequest, obj: unknown): ObjectIdentity {
  return { group: GROUP, kind: PODTRANSITIONRULE_GVK.kind, name: objectName(request, obj) };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Webhook URLs outside the allow-list (an empty list allows every URL). */
export function disallowedWebhookUrls(rule: PodTransitionRule, prefixes: readonly string[]): FieldError[] {
  if (prefixes.length === 0) return [];
  const errs: FieldError[] = [];
  (rule.spec?.rules ?? []).forEach((r, i) => {
    const url = r.webhook?.clientConfig?.url;
    if (typeof url === 'string' && !prefixes.some((p) => url.startsWith(p))) {
      errs.push(fieldError.forbidden(`spec.rules[${i}].webhook.clientConfig.url`, `the controller may call only URLs starting with ${prefixes.map((p) => JSON.stringify(p)).join(', ')}`));
    }
  });
  return errs;
}

export function podTransitionRuleDefaulter(_deps: WebhookDeps): AdmissionWebhook {
  return {
    name: 'mpodtransitionrule.kb.io',
    type: 'mutating',
    path: '/mutate-podtransitionrule',
    rules,
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    handle(request) {
      const obj = request.object;
      if (!isObject(obj)) return Promise.resolve(deniedInvalid(identity(request, obj), [fieldError.required('spec', 'the request has no object')]));
      return Promise.resolve(allowed(createJsonPatch(obj, defaultPodTransitionRule(obj as unknown as PodTransitionRule))));
    },
  };
}

export function podTransitionRuleValidator(deps: WebhookDeps): AdmissionWebhook {
  return {
    name: 'vpodtransitionrule.kb.io',
    type: 'validating',
    path: '/validate-podtransitionrule',
    rules,
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    handle(request) {
      const obj = request.object;
      if (!isObject(obj)) return Promise.resolve(deniedInvalid(identity(request, obj), [fieldError.required('spec', 'the request has no object')]));
      const rule = obj as unknown as PodTransitionRule;
      const invalid = validatePodTransitionRule(rule);
      if (invalid.length > 0) return Promise.resolve(deniedInvalid(identity(request, obj), invalid));
      const forbidden = disallowedWebhookUrls(rule, deps.transitionRuleWebhookAllowedPrefixes);
      return Promise.resolve(forbidden.length > 0 ? deniedForbidden(identity(request, obj), forbidden) : allowed());
    },
  };
}
