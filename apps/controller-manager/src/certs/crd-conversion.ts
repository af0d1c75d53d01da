// Keeps a CRD's conversion webhook pointed at this manager and trusting its CA, as the admission
// webhook configurations get their caBundle (ca-injector.ts). In service mode the manager owns
// the stanza, as OpenKruise's manager does: the Service it names is ours, whatever a CRD applied
// over it said (a chart in another namespace, OpenKruise's own CRD). In URL mode the installer
// (`npm start`) decides which process converts (a local cluster may run several managers, each
// test its own): the manager writes only a stanza that points at its URL, or one that is missing
// (strategy None, which would only rename apiVersion).
import { webhookConversion, type CrdConversion, type CrdVersion, type WebhookClientConfig } from '@cloneset-suite/api-types';
import { isConflict, isInvalid, isNotFound, jsonPatch, type GroupVersionResource, type JsonPatchOperation, type KubeClient, type KubeObject, type Logger } from '@cloneset-suite/kube-runtime';
import { isOlderCaBundle } from './ca-bundle-age.ts';
import { decideOptInVersion, servedVersionOps, type OptInVersionDecision } from './crd-versions.ts';

export const CustomResourceDefinitions = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
} as const satisfies GroupVersionResource;

/** Where the apiserver reaches this manager's webhook server. */
export type ConversionTarget = { urlBase: string } | { service: { namespace: string; name: string; port: number } };

/** The conversion stanza as a CRD holds it (any of it may be missing or odd). */
export interface CrdConversionState {
  strategy?: string;
  webhook?: { conversionReviewVersions?: string[]; clientConfig?: WebhookClientConfig };
}

export type CrdConversionPlan =
  | { action: 'none'; reason: string }
  /** URL mode: the stanza names another converter, which the installer chose; never ours to change. */
  | { action: 'served-elsewhere'; by: string }
  | { action: 'write'; conversion: CrdConversion; reason: string }
  /** It points at us but trusts a newer CA than ours: another replica rotated after our read. */
  | { action: 'newer-present' };

export interface CrdConversionGoal {
  target: ConversionTarget;
  /** Path of the conversion webhook on the server. */
  path: string;
  /** PEM of every CA the serving certificate may come from. */
  caBundlePem: string;
  /** Write even over a newer caBundle (the caller re-read the Secret and it still holds ours). */
  overwriteNewer?: boolean;
}

function clientConfigFor(target: ConversionTarget, path: string): WebhookClientConfig {
  return 'urlBase' in target ? { url: `${target.urlBase.replace(/\/+$/, '')}${path}` } : { service: { ...target.service, path } };
}

function sameEndpoint(a: WebhookClientConfig | undefined, b: WebhookClientConfig): boolean {
  if (!a) return false;
  if (b.url !== undefined) return a.url === b.url && a.service === undefined;
  const s = a.service;
  return a.url === undefined && s !== undefined && s.namespace === b.service?.namespace && s.name === b.service.name && (s.path ?? '/') === b.service.path && (s.port ?? 443) === b.service.port;
}

const decode = (b64: string | undefined): string => Buffer.from(b64 ?? '', 'base64').toString('utf8');

/** What to write into a CRD's conversion stanza, given what it holds (pure). */
export function planCrdConversion(current: CrdConversionState | undefined, goal: CrdConversionGoal): CrdConversionPlan {
  const endpoint = clientConfigFor(goal.target, goal.path);
  const caBundle = Buffer.from(goal.caBundlePem).toString('base64');
  const isWebhook = current?.strategy === 'Webhook';
  const existing = current?.webhook?.clientConfig;
  const pointsAtUs = isWebhook && sameEndpoint(existing, endpoint);
  if ('urlBase' in goal.target && isWebhook && !pointsAtUs) {
    return { action: 'served-elsewhere', by: existing?.url ?? `service ${existing?.service?.namespace}/${existing?.service?.name}` };
  }
  if (pointsAtUs && !goal.overwriteNewer && isOlderCaBundle(goal.caBundlePem, decode(existing?.caBundle))) return { action: 'newer-present' };
  if (pointsAtUs && existing?.caBundle === caBundle && (current?.webhook?.conversionReviewVersions ?? []).includes('v1')) {
    return { action: 'none', reason: 'already points at this manager and trusts its CA' };
  }
  const reason = pointsAtUs ? 'caBundle' : isWebhook ? 'pointed elsewhere' : 'no conversion webhook';
  return { action: 'write', conversion: webhookConversion({ ...endpoint, caBundle }), reason };
}

interface Crd extends KubeObject {
  spec?: { conversion?: CrdConversionState; versions?: { name: string }[] };
  status?: { storedVersions?: string[] };
}

/** A CRD whose conversion webhook the server serves, and the version only the opt-in serves, if any. */
export interface ConvertedCrd {
  name: string;
  optInVersion?: CrdVersion;
}

export interface EnsureResult {
  /** A CRD already trusts a newer CA than ours; nothing older was written over it. */
  newerPresent: boolean;
  /** What the operator must hear about a version kept served (warn) or a switch-off refused (error). */
  notices: { level: 'warn' | 'error'; crd: string; message: string }[];
}

/**
 * The patch that serves (or stops serving) the CRD's opt-in version with the conversion it needs,
 * or why nothing is written (pure). A CRD without an opt-in version always converts.
 */
export function planCrdServing(crd: Crd, converted: ConvertedCrd, goal: CrdConversionGoal & { optIn: boolean }): { ops: JsonPatchOperation[]; conversion: CrdConversionPlan; decision: OptInVersionDecision } {
  const version = converted.optInVersion;
  const decision: OptInVersionDecision = version ? decideOptInVersion(converted.name, crd, version.name, goal.optIn) : { serve: true, why: 'opted-in' };
  const conversion = planCrdConversion(crd.spec?.conversion, goal);
  if (conversion.action === 'served-elsewhere' || conversion.action === 'newer-present') return { ops: [], conversion, decision };
  if (decision.serve) {
    const ops: JsonPatchOperation[] = conversion.action === 'write' ? [{ op: 'add', path: '/spec/conversion', value: conversion.conversion }] : [];
    return { ops: [...ops, ...(version ? servedVersionOps(crd, version, decision) : [])], conversion, decision };
  }
  const ops = servedVersionOps(crd, version!, decision);
  const removesVersion = ops.some((o) => o.op === 'remove' && o.path.startsWith('/spec/versions/'));
  // With one version left nothing converts; no stanza may send reads to a manager.
  if (removesVersion && crd.spec?.conversion?.strategy === 'Webhook') ops.push({ op: 'replace', path: '/spec/conversion', value: { strategy: 'None' } });
  return { ops, conversion: { action: 'none', reason: 'the opt-in version is not served' }, decision };
}

function leftReason(plan: CrdConversionPlan): string {
  if (plan.action === 'none') return plan.reason;
  if (plan.action === 'served-elsewhere') return `conversion is served by ${plan.by}, not this manager's URL`;
  return 'up to date';
}

/**
 * Keeps each CRD converting through this manager and serving its opt-in version as `optIn` and
 * its stored versions say; a missing CRD is not an error (it may be installed later).
 */
export async function ensureCrdConversions(client: KubeClient, crds: readonly ConvertedCrd[], goal: CrdConversionGoal & { optIn: boolean }, logger: Logger): Promise<EnsureResult> {
  const api = client.resource<Crd>(CustomResourceDefinitions);
  const result: EnsureResult = { newerPresent: false, notices: [] };
  for (const converted of crds) {
    const name = converted.name;
    for (let attempt = 0; ; attempt++) {
      let crd: Crd;
      try {
        crd = await api.get(undefined, name);
      } catch (err) {
        if (isNotFound(err)) {
          logger.debug({ crd: name }, 'CRD not found; no conversion webhook to point at us');
          break;
        }
        throw err;
      }
      const plan = planCrdServing(crd, converted, goal);
      if (plan.decision.serve && plan.decision.why !== 'opted-in') result.notices.push({ level: plan.decision.why === 'stored' ? 'warn' : 'error', crd: name, message: plan.decision.message });
      if (plan.conversion.action === 'newer-present') {
        logger.info({ crd: name }, 'the CRD trusts a newer CA than our read of the Secret; not overwriting it');
        result.newerPresent = true;
        break;
      }
      if (plan.ops.length === 0) {
        logger.debug({ crd: name, reason: leftReason(plan.conversion) }, 'CRD conversion left as it is');
        break;
      }
      try {
        await api.patch(undefined, name, jsonPatch(plan.ops, { resourceVersion: crd.metadata?.resourceVersion ?? '' }));
        const write = plan.conversion.action === 'write' ? plan.conversion : undefined;
        logger.info({ crd: name, serves: plan.decision.serve ? 'all versions' : 'v1alpha1 only', ...(write ? { reason: write.reason, clientConfig: { ...write.conversion.webhook.clientConfig, caBundle: undefined } } : {}) }, write ? 'pointed the CRD conversion webhook at this manager' : 'updated the CRD\'s served versions');
        break;
      } catch (err) {
        // A failed test op answers 422 on some servers, 409 on others: read again either way.
        if ((!isConflict(err) && !isInvalid(err)) || attempt === 4) throw err;
      }
    }
  }
  return result;
}
