// CustomResourceDefinition objects for both kinds, built from the schemas in ../*/schema.ts.
import { CLONESET_GVK, CloneSetSchema } from '../cloneset/schema.ts';
import { CLONESET_V1BETA1_GVK, CloneSetV1beta1Schema } from '../cloneset/v1beta1-schema.ts';
import type { GroupVersionKind } from '../meta.ts';
import { PODTRANSITIONRULE_GVK, PodTransitionRuleSchema } from '../transition-rule/schema.ts';
import { normalize } from './normalize.ts';

export interface PrinterColumn {
  name: string;
  type: 'integer' | 'string' | 'date' | 'number' | 'boolean';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface CrdVersionExtras {
  subresources: Record<string, unknown>;
  additionalPrinterColumns?: PrinterColumn[];
}

/** An OpenAPI schema node as written into the CRD. */
export interface SchemaNode {
  [keyword: string]: unknown;
  type?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  required?: string[];
  enum?: unknown[];
  'x-kubernetes-validations'?: { rule: string; message?: string; fieldPath?: string }[];
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema: { openAPIV3Schema: SchemaNode };
  subresources: Record<string, unknown>;
  additionalPrinterColumns?: PrinterColumn[];
}

/** Where the apiserver sends ConversionReviews: exactly one of url and service. */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  /** base64 PEM of the CA(s) that signed the webhook's serving certificate. */
  caBundle?: string;
}

export interface CrdConversion {
  strategy: 'Webhook';
  webhook: { conversionReviewVersions: string[]; clientConfig: WebhookClientConfig };
}

/** A conversion stanza that sends apiextensions.k8s.io/v1 ConversionReviews to `clientConfig`. */
export function webhookConversion(clientConfig: WebhookClientConfig): CrdConversion {
  return { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig } };
}

/** The parts of an apiextensions.k8s.io/v1 CustomResourceDefinition this package writes. */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames: string[]; categories?: string[] };
    scope: 'Namespaced' | 'Cluster';
    versions: CrdVersion[];
    conversion?: CrdConversion;
  };
}

interface ServedVersion {
  gvk: GroupVersionKind;
  schema: unknown;
  storage: boolean;
}

function crd(versions: readonly ServedVersion[], extras: CrdVersionExtras, options: { categories?: string[]; conversion?: CrdConversion } = {}): CustomResourceDefinition {
  const gvk = versions[0]!.gvk;
  const { categories, conversion } = options;
  // normalize() only re-orders and drops TypeBox markers, so the shape is the one built here.
  return normalize({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${gvk.plural}.${gvk.group}` },
    spec: {
      group: gvk.group,
      names: {
        kind: gvk.kind,
        listKind: gvk.listKind,
        plural: gvk.plural,
        singular: gvk.singular,
        shortNames: [...gvk.shortNames],
        categories,
      },
      scope: 'Namespaced',
      versions: versions.map((v) => ({
        name: v.gvk.version,
        served: true,
        storage: v.storage,
        schema: { openAPIV3Schema: v.schema },
        subresources: extras.subresources,
        additionalPrinterColumns: extras.additionalPrinterColumns,
      })),
      conversion,
    },
  }) as unknown as CustomResourceDefinition;
}

/** The printer columns of OpenKruise's CloneSet CRD, in order; the last three only with `-o wide`. */
export const CLONESET_PRINTER_COLUMNS: PrinterColumn[] = [
  { name: 'DESIRED', type: 'integer', jsonPath: '.spec.replicas', description: 'The desired number of pods.' },
  { name: 'UPDATED', type: 'integer', jsonPath: '.status.updatedReplicas', description: 'The number of pods updated.' },
  { name: 'UPDATED_READY', type: 'integer', jsonPath: '.status.updatedReadyReplicas', description: 'The number of pods updated and ready.' },
  { name: 'UPDATED_AVAILABLE', type: 'integer', jsonPath: '.status.updatedAvailableReplicas', description: 'The number of pods updated and available.' },
  { name: 'READY', type: 'integer', jsonPath: '.status.readyReplicas', description: 'The number of pods ready.' },
  { name: 'TOTAL', type: 'integer', jsonPath: '.status.replicas', description: 'The number of currently all pods.' },
  { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  { name: 'CONTAINERS', type: 'string', jsonPath: '.spec.template.spec.containers[*].name', description: 'The containers of currently cloneset.', priority: 1 },
  { name: 'IMAGES', type: 'string', jsonPath: '.spec.template.spec.containers[*].image', description: 'The images of currently cloneset.', priority: 1 },
  { name: 'SELECTOR', type: 'string', jsonPath: '.status.labelSelector', description: 'The selector of currently cloneset.', priority: 1 },
];

export interface CloneSetCrdOptions {
  /**
   * Serve `apps.kruise.io/v1beta1` beside `v1alpha1` (the operator's opt-in; every released
   * OpenKruise, v1.x, serves v1alpha1 only, so kubectl's default version stays v1alpha1 without it).
   */
  v1beta1?: boolean;
  /**
   * Where v1alpha1 <-> v1beta1 conversions go (only with `v1beta1`). Without it the CRD has no
   * conversion stanza (the apiserver's default, None, which only renames apiVersion): whoever
   * installs it points it at a webhook (the manager itself, or `npm start` at its URL).
   */
  conversion?: CrdConversion;
}

/** The name of the CloneSet version only the opt-in serves. */
export const CLONESET_OPT_IN_VERSION = CLONESET_V1BETA1_GVK.version;

/**
 * v1alpha1 (served, storage) and, with `v1beta1`, v1beta1 (served), with the same printer
 * columns, status and scale subresources on both.
 */
export function cloneSetCrd(options: CloneSetCrdOptions = {}): CustomResourceDefinition {
  const versions = [
    { gvk: CLONESET_GVK, schema: CloneSetSchema, storage: true },
    ...(options.v1beta1 ? [{ gvk: CLONESET_V1BETA1_GVK, schema: CloneSetV1beta1Schema, storage: false }] : []),
  ];
  return crd(versions, {
    subresources: {
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.labelSelector',
      },
    },
    additionalPrinterColumns: CLONESET_PRINTER_COLUMNS,
  }, options.v1beta1 && options.conversion ? { conversion: options.conversion } : {});
}

export const PODTRANSITIONRULE_PRINTER_COLUMNS: PrinterColumn[] = [
  { name: 'RULES', type: 'string', jsonPath: '.spec.rules[*].name', description: 'The rules, by name.' },
  { name: 'TARGETS', type: 'integer', jsonPath: '.status.targetCount', description: 'Selected pods.' },
  { name: 'PASSED', type: 'integer', jsonPath: '.status.passedCount', description: 'Pods in a stage that may leave it.' },
  { name: 'WAITING', type: 'integer', jsonPath: '.status.waitingCount', description: 'Pods in a stage held by a rule.' },
  { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  { name: 'SELECTOR', type: 'string', jsonPath: '.spec.selector', description: 'The pods it selects.', priority: 1 },
];

export function podTransitionRuleCrd(): CustomResourceDefinition {
  return crd([{ gvk: PODTRANSITIONRULE_GVK, schema: PodTransitionRuleSchema, storage: true }], {
    subresources: { status: {} },
    additionalPrinterColumns: PODTRANSITIONRULE_PRINTER_COLUMNS,
  });
}
