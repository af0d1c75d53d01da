// Mutating- and ValidatingWebhookConfiguration objects for the registered webhooks: in URL mode
// (local clusters: the apiserver dials <url-base><path>) or service mode (in-cluster).
import type { AdmissionWebhook, LabelSelectorSpec } from './types.ts';

export type ClientTarget =
  | { urlBase: string }
  | { service: { name: string; namespace: string; port?: number } };

export interface ConfigurationOptions {
  /** Name of both configuration objects. */
  name: string;
  target: ClientTarget;
  /** base64 PEM of the CA(s) that signed the serving certificate; injected later when omitted. */
  caBundle?: string;
  /** Limits every webhook to matching namespaces (tests scope themselves this way). */
  namespaceSelector?: LabelSelectorSpec;
  labels?: Record<string, string>;
}

export interface WebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string; labels?: Record<string, string>; resourceVersion?: string };
  webhooks: Record<string, unknown>[];
}

function entry(hook: AdmissionWebhook, o: ConfigurationOptions): Record<string, unknown> {
  const clientConfig: Record<string, unknown> =
    'urlBase' in o.target
      ? { url: `${o.target.urlBase.replace(/\/+$/, '')}${hook.path}` }
      : { service: { name: o.target.service.name, namespace: o.target.service.namespace, path: hook.path, port: o.target.service.port ?? 443 } };
  if (o.caBundle) clientConfig.caBundle = o.caBundle;
  return {
    name: hook.name,
    admissionReviewVersions: ['v1'],
    clientConfig,
    rules: hook.rules,
    failurePolicy: hook.failurePolicy,
    matchPolicy: 'Equivalent',
    sideEffects: 'None',
    timeoutSeconds: hook.timeoutSeconds,
    namespaceSelector: o.namespaceSelector,
    objectSelector: hook.objectSelector,
    ...(hook.type === 'mutating' ? { reinvocationPolicy: 'Never' } : {}),
  };
}

export function webhookConfigurations(hooks: readonly AdmissionWebhook[], o: ConfigurationOptions): WebhookConfiguration[] {
  const metadata = { name: o.name, labels: o.labels };
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata,
      webhooks: hooks.filter((h) => h.type === 'mutating').map((h) => entry(h, o)),
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata,
      webhooks: hooks.filter((h) => h.type === 'validating').map((h) => entry(h, o)),
    },
  ];
}
