// Keeps a CRD's conversion webhook pointed at this manager and trusting its CA, as the admission
// webhook configurations get their caBundle (ca-injector.ts). In service mode the manager owns
// the stanza, as OpenKruise's manager does: the Service it names is ours, whatever a CRD applied
// over it said (a chart in another namespace, OpenKruise's own CRD). In URL mode the installer
// (`npm start`) decides which process converts (a local cluster may run several managers, each
// test its own): the manager writes only a stanza that points at its URL, or one that is missing
// (strategy None, which would only rename apiVersion).
import { webhookConversion, type CrdConversion, type WebhookClientConfig } from '@cloneset-suite/api-types';
import { isConflict, isInvalid, isNotFound, jsonPatch, type GroupVersionResource, type KubeClient, type KubeObject, type Logger } from '@cloneset-suite/kube-runtime';
import { isOlderCaBundle } from './ca-bundle-age.ts';

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
    return { action: 'none', reason: `conversion is served by ${existing?.url ?? `service ${existing?.service?.namespace}/${existing?.service?.name}`}, not this manager's URL` };
  }
  if (pointsAtUs && !goal.overwriteNewer && isOlderCaBundle(goal.caBundlePem, decode(existing?.caBundle))) return { action: 'newer-present' };
  if (pointsAtUs && existing?.caBundle === caBundle && (current?.webhook?.conversionReviewVersions ?? []).includes('v1')) {
    return { action: 'none', reason: 'already points at this manager and trusts its CA' };
  }
  const reason = pointsAtUs ? 'caBundle' : isWebhook ? 'pointed elsewhere' : 'no conversion webhook';
  return { action: 'write', conversion: webhookConversion({ ...endpoint, caBundle }), reason };
}

interface Crd extends KubeObject {
  spec?: { conversion?: CrdConversionState };
}

export interface EnsureResult {
  /** A CRD already trusts a newer CA than ours; nothing older was written over it. */
  newerPresent: boolean;
}

/** Applies planCrdConversion to each named CRD; a missing CRD is not an error (it may be installed later). */
export async function ensureCrdConversions(client: KubeClient, crdNames: readonly string[], goal: CrdConversionGoal, logger: Logger): Promise<EnsureResult> {
  const api = client.resource<Crd>(CustomResourceDefinitions);
  let newerPresent = false;
  for (const name of crdNames) {
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
      const plan = planCrdConversion(crd.spec?.conversion, goal);
      if (plan.action === 'newer-present') {
        logger.info({ crd: name }, 'the CRD trusts a newer CA than our read of the Secret; not overwriting it');
        newerPresent = true;
        break;
      }
      if (plan.action === 'none') {
        logger.debug({ crd: name, reason: plan.reason }, 'CRD conversion left as it is');
        break;
      }
      try {
        await api.patch(undefined, name, jsonPatch([{ op: 'add', path: '/spec/conversion', value: plan.conversion }], { resourceVersion: crd.metadata?.resourceVersion ?? '' }));
        logger.info({ crd: name, reason: plan.reason, clientConfig: { ...plan.conversion.webhook.clientConfig, caBundle: undefined } }, 'pointed the CRD conversion webhook at this manager');
        break;
      } catch (err) {
        // A failed test op answers 422 on some servers, 409 on others: read again either way.
        if ((!isConflict(err) && !isInvalid(err)) || attempt === 4) throw err;
      }
    }
  }
  return { newerPresent };
}
