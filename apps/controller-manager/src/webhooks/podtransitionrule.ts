// The PodTransitionRule admission webhooks: api-types defaulting and validation, plus where the
// controller may call (decisions.md, our choices 7-8): admission checks each webhook URL (url and
// poll.url) against the allow-list of origins and refuses one naming a link-local or
// cloud-metadata address literally, but never dials it (the controller checks the address it
// dials on every call).
import {
  PODTRANSITIONRULE_GVK,
  defaultPodTransitionRule,
  fieldError,
  validatePodTransitionRule,
  type FieldError,
  type PodTransitionRule,
} from '@cloneset-suite/api-types';
import { isLinkLocalAddress, literalAddress, parseAllowedOrigin, urlAllowed } from '@cloneset-suite/transition-rule';
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
  /** --transition-rule-webhook-allow-link-local */
  allowLinkLocal: boolean;
}

/** Webhook URLs (url and poll.url) the controller would refuse to call. */
export function disallowedWebhookUrls(rule: PodTransitionRule, policy: OutboundPolicy): FieldError[] {
  const origins = policy.allowed.map(parseAllowedOrigin);
  const errs: FieldError[] = [];
  const check = (url: unknown, field: string): void => {
    if (typeof url !== 'string') return;
    if (!urlAllowed(url, origins)) {
      errs.push(fieldError.forbidden(field, `the controller may call only ${policy.allowed.map((p) => JSON.stringify(p)).join(', ')} (scheme, host and port as parsed from the URL)`));
      return;
    }
    const address = literalAddress(url);
    if (!policy.allowLinkLocal && address !== undefined && isLinkLocalAddress(address)) {
      errs.push(fieldError.forbidden(field, `${address} is a link-local or cloud-metadata address; the controller calls none unless started with --transition-rule-webhook-allow-link-local`));
    }
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
      const forbidden = disallowedWebhookUrls(rule, { allowed: deps.transitionRuleWebhookAllowedPrefixes, allowLinkLocal: deps.transitionRuleWebhookAllowLinkLocal ?? false });
      return Promise.resolve(forbidden.length > 0 ? deniedForbidden(identity(request, obj), forbidden) : allowed());
    },
  };
}
