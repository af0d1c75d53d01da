// What a webhook handler is: where it is served, what the apiserver should send it (used to
// build the webhook configurations) and the function that answers.
import type { CrdVersion, PodLookup } from '@cloneset-suite/api-types';
import type { Logger } from '@cloneset-suite/kube-runtime';
import type { TrafficService } from '@cloneset-suite/podopslifecycle';
import type { FeatureGates } from '../config/feature-gates.ts';
import type { AdmissionRequest, AdmissionResponse, Operation } from './admission-review.ts';
import type { ConversionRequest, ConversionResponse } from './conversion-review.ts';

export interface RuleWithOperations {
  operations: Operation[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope?: 'Namespaced' | 'Cluster' | '*';
}

export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

export interface AdmissionContext {
  /** Aborted when the request's time limit is reached. */
  signal: AbortSignal;
  logger: Logger;
}

export interface AdmissionWebhook {
  /** Name in the webhook configuration (at least three DNS segments). */
  name: string;
  type: 'mutating' | 'validating';
  /** URL path on the webhook server. */
  path: string;
  rules: RuleWithOperations[];
  failurePolicy: 'Fail' | 'Ignore';
  timeoutSeconds: number;
  /** Pod webhooks select on the control label; others see every object of their kinds. */
  objectSelector?: LabelSelectorSpec;
  handle(request: AdmissionRequest, ctx: AdmissionContext): Promise<AdmissionResponse>;
}

/** A CRD's conversion webhook: pure and synchronous, so it needs no time limit of its own. */
export interface ConversionWebhook {
  /** The CRD it converts (for logs and metrics). */
  name: string;
  /** URL path on the webhook server. */
  path: string;
  /** A version the CRD serves only on the operator's opt-in (or while stored); the others always. */
  optInVersion?: CrdVersion;
  convert(request: ConversionRequest): ConversionResponse;
}

/** The pods the podsToDelete rule may look at: the manager's cache, never an API call per name. */
export interface PodCache {
  /** False until the cache has listed pods once: until then no lookup can be answered. */
  hasSynced(): boolean;
  get(namespace: string, name: string): PodLookup | undefined;
}

/** What the handlers may use; built once per process. */
export interface WebhookDeps {
  pods: PodCache;
  featureGates: FeatureGates;
  /** --transition-rule-webhook-allowed-prefixes (origins); empty allows any URL. */
  transitionRuleWebhookAllowedPrefixes: readonly string[];
  /** Address classes webhook URLs may name (see transitionRuleAllowAddresses); unset refuses every class. */
  transitionRuleWebhookAllowAddresses?: readonly string[];
  /** --transition-rule-webhook-private-cidrs; unset allows every private range. */
  transitionRuleWebhookPrivateCidrs?: readonly string[];
  /**
   * The Services of a namespace, from the manager's cache, when the traffic cooperation runs: a
   * controlled pod is created with an expected-finalizer entry per Service selecting it.
   */
  trafficServices?: (namespace: string) => TrafficService[];
}
