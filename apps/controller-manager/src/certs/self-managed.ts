// Self-managed webhook certificates: make sure the Secret holds a valid CA and serving
// certificate for our names (creating or renewing them), serve that certificate, and keep the
// webhook configurations' caBundle current. Runs on every replica; the Secret is the one truth.
import type { KubeClient, Logger } from '@cloneset-suite/kube-runtime';
import type { ServingCertificate } from './serving-certificate.ts';
import { nextRenewal, planBundle } from './bundle.ts';
import { injectCaBundle } from './ca-injector.ts';
import { ensureCrdConversions, type ConversionTarget, type ConvertedCrd, type EnsureResult } from './crd-conversion.ts';
import { SecretStore } from './secret-store.ts';
import { abortableSleep } from './sleep.ts';

export interface SelfManagedOptions {
  client: KubeClient;
  namespace: string;
  secretName: string;
  /** Mutating- and ValidatingWebhookConfiguration to inject the caBundle into. */
  configurationName: string;
  /**
   * CRDs whose conversion webhook this server serves (name = the CRD), how the apiserver reaches
   * it, and whether the operator opted in to their opt-in versions.
   */
  conversions?: { target: ConversionTarget; webhooks: readonly (ConvertedCrd & { path: string })[]; optIn: boolean };
  /** DNS names and IPs the serving certificate must carry. */
  hosts: readonly string[];
  servingValidityMs: number;
  logger: Logger;
  onCertificate: (c: ServingCertificate) => Promise<void>;
  /** How often to look again (another replica may have rotated; configurations may appear). */
  checkIntervalMs?: number;
  now?: () => Date;
}

/** What the operator must hear about a CRD's served versions (see ensureCrdConversions). */
export type CertificateNotice = EnsureResult['notices'][number];

/** One pass; says when the certificates should next be renewed, and what the operator must hear. */
export async function syncCertificates(o: SelfManagedOptions, signal?: AbortSignal): Promise<{ renewAt: Date; notices: CertificateNotice[] }> {
  const store = new SecretStore(o.client, o.namespace, o.secretName);
  const now = o.now ?? (() => new Date());
  let previousRead: string | undefined;
  for (let attempt = 0; attempt < 4; attempt++) {
    const stored = await store.read(signal);
    // Read twice at the same version: the Secret is the truth even if a configuration trusts a newer CA.
    const readIsCurrent = stored.resourceVersion !== undefined && stored.resourceVersion === previousRead;
    previousRead = stored.resourceVersion;
    const plan = await planBundle(stored.bundle, { hosts: o.hosts, servingValidityMs: o.servingValidityMs, now: now() });
    if (plan.changed) {
      if (!(await store.write(plan.bundle, stored.resourceVersion))) {
        o.logger.info('another replica wrote the certificates first; reading them again');
        continue;
      }
      o.logger.info({ secret: `${o.namespace}/${o.secretName}`, reason: plan.reason, hosts: o.hosts }, 'issued webhook certificates');
    }
    // The apiserver must trust the issuing CA before anyone is served its certificate, and an
    // older read of the Secret must not replace a newer caBundle: read again first.
    const injected = await injectCaBundle(o.client, o.configurationName, plan.bundle.caBundle, o.logger, { overwriteNewer: readIsCurrent });
    if (injected.newerPresent) continue;
    let crdNewer = false;
    const notices: CertificateNotice[] = [];
    const conversions = o.conversions;
    for (const w of conversions?.webhooks ?? []) {
      const goal = { target: conversions!.target, path: w.path, caBundlePem: plan.bundle.caBundle, overwriteNewer: readIsCurrent, optIn: conversions!.optIn };
      const ensured = await ensureCrdConversions(o.client, [w], goal, o.logger);
      crdNewer = ensured.newerPresent || crdNewer;
      notices.push(...ensured.notices);
    }
    if (crdNewer) continue;
    await o.onCertificate({ cert: plan.bundle.tlsCert, key: plan.bundle.tlsKey });
    return { renewAt: nextRenewal(plan.bundle), notices };
  }
  throw new Error(`could not settle the certificates in Secret ${o.namespace}/${o.secretName} (writes kept conflicting)`);
}

/** Keeps the certificates in shape until the signal aborts; errors are logged and retried. */
export async function runSelfManagedCertificates(o: SelfManagedOptions, signal: AbortSignal): Promise<void> {
  const logger = o.logger.child({ subsystem: 'webhook-certificates' });
  const opts = { ...o, logger };
  // Each notice is said once per process, not on every pass.
  const said = new Set<string>();
  const checkInterval = o.checkIntervalMs ?? 5 * 60_000;
  let retryMs = 1_000;
  while (!signal.aborted) {
    let delay: number;
    try {
      const { renewAt, notices } = await syncCertificates(opts, signal);
      for (const n of notices.filter((n) => !said.has(n.message))) {
        said.add(n.message);
        logger[n.level]({ crd: n.crd }, n.message);
      }
      delay = Math.max(1_000, Math.min(checkInterval, renewAt.getTime() - Date.now()));
      retryMs = 1_000;
    } catch (err) {
      if (signal.aborted) break;
      logger.warn({ err, retryMs }, 'managing the webhook certificates failed; retrying');
      delay = retryMs;
      retryMs = Math.min(retryMs * 2, 30_000);
    }
    await abortableSleep(delay, signal);
  }
}
