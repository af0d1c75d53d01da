// What `npm start` installs on the local cluster before running the manager: the CRDs and the
// URL-mode webhook configurations (the apiserver runs on this machine and dials 127.0.0.1).
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { admissionWebhooks } from './webhooks/index.ts';
import { webhookConfigurations, type WebhookConfiguration } from './webhooks/configurations.ts';
import type { ManagerConfig } from './config/flags.ts';
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
    ...(extra.namespaceSelector ? { namespaceSelector: extra.namespaceSelector } : {}),
  });
}

export function toYaml(objects: readonly object[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}

export async function installCrds(kubectl: Kubectl, crdDir: string): Promise<void> {
  const files = (await readdir(crdDir)).filter((f) => f.endsWith('.yaml')).sort();
  for (const f of files) await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=cloneset-suite-start', '-f', path.join(crdDir, f)]);
  await kubectl(['wait', '--for=condition=Established', '--timeout=60s', '-f', crdDir]);
}

export async function ensureNamespace(kubectl: Kubectl, name: string): Promise<void> {
  await kubectl(['apply', '-f', '-'], toYaml([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }]));
}

/** Server-side apply keeps a caBundle the manager injected (another field manager owns it). */
export async function installWebhookConfigurations(kubectl: Kubectl, configs: readonly WebhookConfiguration[]): Promise<void> {
  await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=cloneset-suite-start', '-f', '-'], toYaml(configs));
}
