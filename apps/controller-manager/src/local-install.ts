// What `npm start` installs on the local cluster before running the manager: the CRDs, the
// URL-mode webhook configurations and the CloneSet CRD's conversion webhook URL (the apiserver
// runs on this machine and dials 127.0.0.1).
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { cloneSetCrd, CLONESET_GVK, CLONESET_OPT_IN_VERSION, webhookConversion, type WebhookClientConfig } from '@cloneset-suite/api-types';
import type { CrdConversionState } from './certs/crd-conversion.ts';
import { decideOptInVersion, type CrdVersionsState } from './certs/crd-versions.ts';
import { admissionWebhooks } from './webhooks/index.ts';
import { webhookConfigurations, type WebhookConfiguration } from './webhooks/configurations.ts';
import type { ManagerConfig } from './config/flags.ts';
import { loadConfig } from './config/load.ts';
import { NO_POD_CACHE } from './webhooks/pod-cache.ts';
import type { LabelSelectorSpec } from './webhooks/types.ts';

export type Kubectl = (args: readonly string[], input?: string) => Promise<string>;

/** URL-mode configurations for the webhooks this build serves (caBundle injected by the manager). */
export function urlModeConfigurations(config: ManagerConfig, extra: { namespaceSelector?: LabelSelectorSpec } = {}): WebhookConfiguration[] {
  if (!config.webhookUrlBase) throw new Error('URL mode needs --webhook-url-base');
  // The handlers are built only to read their routing; no call reaches the client.
  const hooks = admissionWebhooks({ pods: NO_POD_CACHE, featureGates: config.featureGates, transitionRuleWebhookAllowedPrefixes: [] });
  return webhookConfigurations(hooks, {
    name: config.webhookConfigurationName,
    target: { urlBase: config.webhookUrlBase },
    labels: { 'app.kubernetes.io/name': 'cloneset-suite', 'app.kubernetes.io/managed-by': 'npm-start' },
    namespaceSelector: extra.namespaceSelector,
  });
}

export function toYaml(objects: readonly object[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}

export interface InstalledCrds {
  /** Whether the CloneSet CRD serves v1beta1 (the opt-in, or because it is stored). */
  servesV1beta1: boolean;
  /** Set when v1beta1 stays served without the opt-in (stored), or the opt-in's switch-off is refused. */
  notice?: string;
}

/**
 * Applies the CRDs of `crdDir`. The CloneSet CRD serves v1alpha1 only, unless `v1beta1.optIn`
 * asks for v1beta1 or the live CRD still stores it (decideOptInVersion: a CRD dropping a stored
 * version would be refused by the apiserver, and its objects would become unreadable); then it is
 * applied with v1beta1, converting through `v1beta1.conversion` when given.
 */
export async function installCrds(kubectl: Kubectl, crdDir: string, v1beta1: { optIn?: boolean; conversion?: WebhookClientConfig } = {}): Promise<InstalledCrds> {
  const live = await kubectl(['get', 'crd', CLONESET_CRD_NAME, '--ignore-not-found', '-o', 'json']);
  const decision = decideOptInVersion(CLONESET_CRD_NAME, live.trim() ? (JSON.parse(live) as CrdVersionsState) : {}, CLONESET_OPT_IN_VERSION, v1beta1.optIn ?? false);
  // The file name renderCrdFiles gives the CloneSet CRD.
  const cloneSetFile = `${CLONESET_GVK.group}_${CLONESET_GVK.plural}.yaml`;
  const files = (await readdir(crdDir)).filter((f) => f.endsWith('.yaml')).sort();
  const apply = ['apply', '--server-side', '--force-conflicts', '--field-manager=cloneset-suite-start'];
  for (const f of files) {
    if (f === cloneSetFile && decision.serve) {
      const crd = cloneSetCrd({ v1beta1: true, ...(v1beta1.conversion ? { conversion: webhookConversion(v1beta1.conversion) } : {}) });
      await kubectl([...apply, '-f', '-'], toYaml([crd]));
    } else {
      await kubectl([...apply, '-f', path.join(crdDir, f)]);
    }
  }
  await kubectl(['wait', '--for=condition=Established', '--timeout=60s', '-f', crdDir]);
  return { servesV1beta1: decision.serve, ...(decision.serve && decision.why !== 'opted-in' ? { notice: decision.message } : {}) };
}

export async function ensureNamespace(kubectl: Kubectl, name: string): Promise<void> {
  await kubectl(['apply', '-f', '-'], toYaml([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }]));
}

/** Server-side apply keeps a caBundle the manager injected (another field manager owns it). */
export async function installWebhookConfigurations(kubectl: Kubectl, configs: readonly WebhookConfiguration[]): Promise<void> {
  await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=cloneset-suite-start', '-f', '-'], toYaml(configs));
}

/**
 * URL-mode webhook configurations named `name`, calling https://127.0.0.1:`port`, asked about
 * writes in `namespaces` only (so a manager that is down refuses nothing outside them), kept
 * through `keep` (all by default); returns their removal.
 */
export async function installScopedWebhooks(
  kubectl: Kubectl,
  o: { name: string; port: number; namespaces: readonly string[]; keep?: (c: WebhookConfiguration) => boolean },
): Promise<() => Promise<void>> {
  const loaded = loadConfig({ argv: [`--webhook-url-base=https://127.0.0.1:${o.port}`, `--webhook-configuration-name=${o.name}`], env: {}, knownControllers: [] });
  if (loaded.kind !== 'config') throw new Error('unexpected help');
  const scope = { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In' as const, values: [...o.namespaces] }] } };
  await installWebhookConfigurations(kubectl, urlModeConfigurations(loaded.config, scope).filter(o.keep ?? (() => true)));
  return async () => void (await kubectl(['delete', 'mutatingwebhookconfiguration,validatingwebhookconfiguration', o.name, '--ignore-not-found']).catch(() => undefined));
}

/** The CloneSet CRD, whose conversion webhook the manager serves. */
export const CLONESET_CRD_NAME = cloneSetCrd().metadata.name;

/** The CRD's conversion stanza, or undefined when the CRD is not there. */
export async function readCrdConversion(kubectl: Kubectl, crdName: string): Promise<CrdConversionState | undefined> {
  const out = await kubectl(['get', 'crd', crdName, '--ignore-not-found', '-o', 'json']);
  if (!out.trim()) return undefined;
  return (JSON.parse(out) as { spec?: { conversion?: CrdConversionState } }).spec?.conversion ?? {};
}

/**
 * Points the CRD's conversion webhook at `clientConfig` (the whole of it: url or service, and the
 * caBundle when given; a manager whose URL it names injects its own).
 */
export async function pointCrdConversion(kubectl: Kubectl, crdName: string, clientConfig: WebhookClientConfig): Promise<void> {
  const conversion = {
    strategy: 'Webhook',
    webhook: {
      conversionReviewVersions: ['v1'],
      clientConfig: { url: clientConfig.url ?? null, service: clientConfig.service ?? null, caBundle: clientConfig.caBundle ?? null },
    },
  };
  await kubectl(['patch', 'crd', crdName, '--type=merge', '-p', JSON.stringify({ spec: { conversion } })]);
}

/**
 * When the CRD's conversion webhook still points at `url`, points it back at the webhook it
 * pointed at before (`previous`), if that was one: a process going away hands conversion back
 * to the converter it borrowed it from. Otherwise it is left pointing at `url` (with nothing
 * converting, reads of the other version fail loudly rather than return the wrong shape),
 * unless `restoreNone` asks for the stanza-less CRD `previous` says (a test run leaves no dead
 * URL behind).
 */
export async function handBackCrdConversion(kubectl: Kubectl, crdName: string, url: string, previous: CrdConversionState | undefined, options: { restoreNone?: boolean } = {}): Promise<boolean> {
  const before = previous?.strategy === 'Webhook' ? previous.webhook?.clientConfig : undefined;
  if (before?.url === url || (!before && !(options.restoreNone && previous))) return false;
  const now = await readCrdConversion(kubectl, crdName);
  if (now?.strategy !== 'Webhook' || now.webhook?.clientConfig?.url !== url) return false;
  if (before) await pointCrdConversion(kubectl, crdName, before);
  else await kubectl(['patch', 'crd', crdName, '--type=merge', '-p', JSON.stringify({ spec: { conversion: { strategy: 'None', webhook: null } } })]);
  return true;
}
