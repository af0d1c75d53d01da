// The admission webhooks as manager Runnables on every replica, standbys included: the server
// (it listens once the first certificate arrives) and the certificate source feeding it, either
// a directory (cert-manager) or self-managed certificates in a Secret.
import type { KubeClient, Logger, Runnable } from '@cloneset-suite/kube-runtime';
import { whenAborted } from '@cloneset-suite/kube-runtime';
import { runCertDir } from '../certs/cert-dir.ts';
import type { ConversionTarget, ConvertedCrd } from '../certs/crd-conversion.ts';
import { runSelfManagedCertificates } from '../certs/self-managed.ts';
import type { ManagerConfig } from '../config/flags.ts';
import type { WebhookServer } from './webhook-server.ts';

export function webhookServerRunnable(server: WebhookServer): Runnable {
  return {
    name: 'webhook-server',
    needLeaderElection: false,
    async start(signal) {
      await whenAborted(signal);
      await server.close();
    },
  };
}

export interface CertificatesOptions {
  config: ManagerConfig;
  client: KubeClient;
  server: WebhookServer;
  hosts: readonly string[];
  logger: Logger;
  checkIntervalMs?: number;
  /** CRDs whose conversion webhook the server serves (self-managed certificates keep them pointed at it). */
  conversions?: { target: ConversionTarget; webhooks: readonly (ConvertedCrd & { path: string })[]; optIn: boolean };
}

/** A failure is logged and leaves the webhooks unready (readyz says so); it does not stop the manager. */
export function certificatesRunnable(o: CertificatesOptions): Runnable {
  const onCertificate = (c: { cert: string; key: string }): Promise<void> => o.server.setCertificate(c);
  const { config } = o;
  return {
    name: 'webhook-certificates',
    needLeaderElection: false,
    async start(signal) {
      if (config.webhookCertDir && o.conversions?.optIn) {
        o.logger.warn('--serve-v1beta1 with --webhook-cert-dir: certificates come from elsewhere, so this manager leaves the CloneSet CRD as installed; apply it with v1beta1 (the kustomize component v1beta1) and inject its caBundle');
      }
      try {
        await (config.webhookCertDir
          ? runCertDir({ dir: config.webhookCertDir, logger: o.logger, onCertificate }, signal)
          : runSelfManagedCertificates(
              {
                client: o.client,
                namespace: config.webhookServiceNamespace,
                secretName: config.webhookSecretName,
                configurationName: config.webhookConfigurationName,
                hosts: o.hosts,
                servingValidityMs: config.webhookCertValidityMs,
                logger: o.logger,
                onCertificate,
                ...(o.checkIntervalMs ? { checkIntervalMs: o.checkIntervalMs } : {}),
                conversions: o.conversions,
              },
              signal,
            ));
      } catch (err) {
        o.logger.error({ err }, 'certificate management stopped');
      }
    },
  };
}
