// The controller-manager process: wires its components into kube-runtime's Manager, which owns
// the lifecycle (the same one the integration harnesses run). The registered controllers run on
// the leader; the webhook server with its certificates, probes and metrics run on every replica.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { DestinationStream } from 'pino';
import { Manager, Resources, createLogger, loadKubeConfig, type Logger } from '@cloneset-suite/kube-runtime';
import { trafficServicesIn, type ServiceObject } from '@cloneset-suite/podopslifecycle';
import { concurrencyFor, enabledControllers } from './config/controllers-flag.ts';
import type { ManagerConfig } from './config/flags.ts';
import { formatBindAddress } from './config/values.ts';
import { cloneSetRegistration } from './controllers/cloneset.ts';
import { podOpsLifecycleRegistration } from './controllers/podopslifecycle.ts';
import type { ControllerRegistration } from './controllers/registration.ts';
import { CONTROLLERS } from './controllers/registry.ts';
import { trafficCooperationRegistration } from './controllers/traffic-cooperation.ts';
import { transitionRuleAllowAddresses, transitionRuleRegistration } from './controllers/transitionrule.ts';
import { httpServerRunnable } from './server/http-runnable.ts';
import { registerProductMetrics } from './metrics/product-metrics.ts';
import { createMetricsServer } from './server/metrics-server.ts';
import { createProbeServer, registerReadinessMetrics } from './server/probes.ts';
import { readinessChecks } from './server/readiness-checks.ts';
import { createWebhookMetrics, initWebhookSeries } from './server/webhook-metrics.ts';
import { loadClientCaFile } from './server/client-authentication.ts';
import { certificatesRunnable, webhookServerRunnable } from './server/webhook-runnables.ts';
import { WebhookServer, webhookServerLimits } from './server/webhook-server.ts';
import { admissionWebhooks, conversionWebhooks } from './webhooks/index.ts';
import type { ConversionTarget } from './certs/crd-conversion.ts';
import { podCacheFromInformer } from './webhooks/pod-cache.ts';
import { ringMembership, shardOptions } from './ring-mode.ts';

export interface StartOptions {
  controllers?: readonly ControllerRegistration[];
  /** Log lines go here instead of stdout (tests). */
  logDestination?: DestinationStream;
  /** How often self-managed certificates are looked at again. */
  certCheckIntervalMs?: number;
}

export interface RunningManager {
  readonly identity: string;
  readonly logger: Logger;
  /** Resolves with the exit code once everything has stopped: 0 after shutdown(), 1 on lost leadership or a failed component. */
  readonly finished: Promise<number>;
  /** Starts the orderly shutdown (idempotent). */
  shutdown(reason: string): void;
}

/** The names the serving certificate needs: the Service's DNS names and, in URL mode, the URL host. */
export function webhookHosts(config: ManagerConfig): string[] {
  const svc = config.webhookServiceName;
  const ns = config.webhookServiceNamespace;
  const hosts = [`${svc}.${ns}.svc`, svc, `${svc}.${ns}`, `${svc}.${ns}.svc.cluster.local`];
  if (config.webhookUrlBase) hosts.unshift(new URL(config.webhookUrlBase).hostname.replace(/^\[|\]$/g, ''));
  return [...new Set(hosts)];
}

/** How the apiserver reaches the conversion webhooks: the URL in URL mode, else the Service on 443. */
export function conversionTarget(config: ManagerConfig): ConversionTarget {
  return config.webhookUrlBase
    ? { urlBase: config.webhookUrlBase }
    : { service: { namespace: config.webhookServiceNamespace, name: config.webhookServiceName, port: 443 } };
}

export function startManager(config: ManagerConfig, options: StartOptions = {}): RunningManager {
  const logger = createLogger({
    level: config.logLevel,
    base: { component: 'controller-manager' },
    destination: options.logDestination,
  });
  const membership = ringMembership(config);
  // A shard is known by its name: its Lease's holder and its Events' reporting instance.
  const identity = membership ? membership.shard : `${hostname()}_${randomUUID()}`;
  const namespace = config.namespace || undefined;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const manager = new Manager({
    kubeConfig: loadKubeConfig(config.kubeconfig),
    qps: config.kubeApiQps,
    burst: config.kubeApiBurst,
    requestTimeoutMs: config.kubeApiRequestTimeoutMs,
    registry,
    logger,
    userAgent: 'cloneset-suite-controller-manager',
    gracefulShutdownTimeoutMs: config.gracefulShutdownTimeoutMs,
    reconcileTimeoutMs: config.reconcileTimeoutMs,
    ...(membership
      ? shardOptions(membership, config)
      : config.leaderElect
      ? {
          leaderElection: {
            namespace: config.leaderElectionNamespace,
            name: config.leaderElectionId,
            identity,
            leaseDurationMs: config.leaderElectionLeaseDurationMs,
            renewDeadlineMs: config.leaderElectionRenewDeadlineMs,
            retryPeriodMs: config.leaderElectionRetryPeriodMs,
            releaseOnCancel: true,
          },
        }
      : {}),
  });

  // Controllers: each registers itself with the manager, which runs it while leading.
  const registrations = options.controllers ?? CONTROLLERS;
  const enabled = enabledControllers(config.controllers, registrations);
  for (const r of registrations.filter((reg) => enabled.includes(reg.name))) {
    r.create({
      manager,
      config,
      namespace,
      maxConcurrentReconciles: concurrencyFor(config.maxConcurrentReconciles, r.name),
      featureGates: config.featureGates,
      identity,
      logger: logger.child({ controller: r.name }),
      registry,
      enabledControllers: enabled,
    });
  }

  // Product metrics read the caches the enabled controllers share (same scope, same RBAC).
  registerProductMetrics({
    manager,
    registry,
    namespace,
    cloneSets: enabled.includes(cloneSetRegistration.name),
    lifecycle: enabled.includes(podOpsLifecycleRegistration.name),
    transitionRules: enabled.includes(transitionRuleRegistration.name),
  });

  let webhookServer: WebhookServer | undefined;
  if (config.webhookPort > 0) {
    // The traffic cooperation's Service cache (the same shared informer), read at pod creation.
    const services = enabled.includes(trafficCooperationRegistration.name) ? manager.informers.informerFor<ServiceObject>(Resources.services, namespace ? { namespace } : {}) : undefined;
    const webhooks = admissionWebhooks({
      // The controllers' own pod informer (same scope), which every replica runs.
      // On a shard, admission concerns objects of every shard: this cache holds all of them.
      pods: podCacheFromInformer(manager.informers.informerFor(Resources.pods, { namespace, acrossShards: true })),
      featureGates: config.featureGates,
      transitionRuleWebhookAllowedPrefixes: config.transitionRuleWebhookAllowedPrefixes,
      transitionRuleWebhookAllowAddresses: transitionRuleAllowAddresses(config),
      transitionRuleWebhookPrivateCidrs: config.transitionRuleWebhookPrivateCidrs,
      ...(services ? { trafficServices: (ns: string) => trafficServicesIn(services, ns) } : {}),
    });
    const conversions = conversionWebhooks();
    const webhookMetrics = createWebhookMetrics(registry);
    webhookServer = new WebhookServer({
      host: config.webhookHost,
      port: config.webhookPort,
      webhooks,
      conversions,
      requestTimeoutMs: config.webhookRequestTimeoutMs,
      maxBodyBytes: config.webhookMaxBodyBytes,
      conversionMaxBodyBytes: config.webhookConversionMaxBodyBytes,
      limits: webhookServerLimits(config),
      ...(config.webhookClientCaFile ? { clientCa: loadClientCaFile(config.webhookClientCaFile) } : {}),
      logger,
      metrics: webhookMetrics,
    });
    initWebhookSeries(webhookMetrics, webhookServer.paths());
    manager.add(webhookServerRunnable(webhookServer));
    manager.add(
      certificatesRunnable({
        config,
        client: manager.client,
        server: webhookServer,
        hosts: webhookHosts(config),
        logger,
        conversions: { target: conversionTarget(config), webhooks: conversions, optIn: config.serveV1beta1 },
        ...(options.certCheckIntervalMs ? { checkIntervalMs: options.certCheckIntervalMs } : {}),
      }),
    );
  }
  // Readiness is the webhook server's, never the caches' (readiness-checks.ts says why).
  const probeChecks = readinessChecks({ manager, webhookServer });
  registerReadinessMetrics(registry, probeChecks);
  if (config.healthProbeBindAddress) {
    manager.add(httpServerRunnable('health-probes', createProbeServer(probeChecks), config.healthProbeBindAddress, logger));
  }
  if (config.metricsBindAddress) {
    manager.add(httpServerRunnable('metrics', createMetricsServer(registry), config.metricsBindAddress, logger));
  }

  const stop = new AbortController();
  const finished = manager.start(stop.signal).then(
    (reason) => {
      const exitCode = reason === 'signal' ? 0 : 1;
      logger.info({ reason, exitCode }, 'controller-manager stopped');
      return exitCode;
    },
    (err: unknown) => {
      logger.error({ err }, 'controller-manager failed');
      return 1;
    },
  );
  logger.info(
    {
      identity,
      namespace: namespace ?? '(all)',
      controllers: enabled,
      leaderElect: config.leaderElect,
      controllerRing: membership?.ring,
      shard: membership?.shard,
      metrics: formatBindAddress(config.metricsBindAddress),
      probes: formatBindAddress(config.healthProbeBindAddress),
      webhookPort: config.webhookPort,
    },
    'controller-manager started',
  );
  return {
    identity,
    logger,
    finished,
    shutdown(reason) {
      if (stop.signal.aborted) return;
      logger.info({ reason }, 'shutdown requested');
      stop.abort();
    },
  };
}
