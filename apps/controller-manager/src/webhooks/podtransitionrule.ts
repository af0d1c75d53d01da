// The PodTransitionRule admission webhooks: api-types defaulting and validation (which bounds
// parameters and caBundles), plus where the controller may call: admission checks each webhook
// URL (url and poll.url) against the allow-list of origins and refuses one naming a refused
// address literally (the address policy the controller applies, README "Where calls may go"),
// but never dials it (a probe inside admission would be an outbound call on the submitter's
// behalf; the controller checks the address it dials on every call).
import {
  PODTRANSITIONRULE_GVK,
  defaultPodTransitionRule,
  fieldError,
  validatePodTransitionRule,
  type FieldError,
  type PodTransitionRule,
} from '@cloneset-suite/api-types';
import { addressPolicy, addressRefusal, literalAddress, parseAllowedOrigin, urlAllowed } from '@cloneset-suite/transition-rule';
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

export interface OutboundPolicy {
  /** --transition-rule-webhook-allowed-prefixes (origins); empty allows any URL. */
  allowed: readonly string[];
  /** Address classes allowed (--transition-rule-webhook-allow-addresses, and link-local by --transition-rule-webhook-allow-link-local). */
  allowAddresses: readonly string[];
  /** --transition-rule-webhook-private-cidrs; every private range when undefined. */
  privateCidrs?: readonly string[];
}

/** Webhook URLs (url and poll.url) the controller would refuse to call. */
export function disallowedWebhookUrls(rule: PodTransitionRule, policy: OutboundPolicy): FieldError[] {
  const origins = policy.allowed.map(parseAllowedOrigin);
  const addresses = addressPolicy({ allow: policy.allowAddresses, privateCidrs: policy.privateCidrs });
  const errs: FieldError[] = [];
  const check = (url: unknown, field: string): void => {
    if (typeof url !== 'string') return;
    if (!urlAllowed(url, origins)) {
      errs.push(fieldError.forbidden(field, `the controller may call only ${policy.allowed.map((p) => JSON.stringify(p)).join(', ')} (scheme, host and port as parsed from the URL)`));
      return;
    }
    const address = literalAddress(url);
    const refusal = address === undefined ? undefined : addressRefusal(address, addresses);
    if (refusal !== undefined) errs.push(fieldError.forbidden(field, `the controller never calls it: ${refusal}`));
  };
  (rule.spec?.rules ?? []).forEach((r, i) => {
    const config = r.webhook?.clientConfig;
    check(config?.url, `spec.rules[${i}].webhook.clientConfig.url`);
    check(config?.poll?.url, `spec.rules[${i}].webhook.clientConfig.poll.url`);
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
      const forbidden = disallowedWebhookUrls(rule, {
        allowed: deps.transitionRuleWebhookAllowedPrefixes,
        allowAddresses: deps.transitionRuleWebhookAllowAddresses ?? [],
        privateCidrs: deps.transitionRuleWebhookPrivateCidrs,
      });
      return Promise.resolve(forbidden.length > 0 ? deniedForbidden(identity(request, obj), forbidden) : allowed());
    },
  };
}
