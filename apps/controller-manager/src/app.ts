// The controller-manager process: shared client and caches, the registered controllers (run by
// the leader only), the webhook server with its certificates, probes and metrics (every
// replica), and an orderly shutdown: unready, drain controllers (bounded), release the lease,
// close the servers, stop the informers.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { DestinationStream } from 'pino';
import { Manager, createLogger, loadKubeConfig, type Logger } from '@cloneset-suite/kube-runtime';
import { runCertDir } from './certs/cert-dir.ts';
import { runSelfManagedCertificates } from './certs/self-managed.ts';
import { concurrencyFor, enabledControllers } from './config/controllers-flag.ts';
import type { ManagerConfig } from './config/flags.ts';
import { formatBindAddress, type BindAddress } from './config/values.ts';
import { CONTROLLERS, type ControllerRegistration, type ManagedController } from './controllers/registry.ts';
import { startLeaderElection, type LeaderHandle } from './leader.ts';
import { createMetricsServer } from './server/metrics-server.ts';
import { createProbeServer } from './server/probes.ts';
import { createWebhookMetrics } from './server/webhook-metrics.ts';
import { WebhookServer } from './server/webhook-server.ts';
import { admissionWebhooks } from './webhooks/index.ts';

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
  /** Resolves with the exit code once everything has stopped. */
  readonly finished: Promise<number>;
  /** Starts the orderly shutdown (idempotent). */
  shutdown(reason: string, exitCode?: number): void;
  /** Bound ports (useful when 0 was asked for). */
  ports(): { metrics?: number; probes?: number; webhook?: number };
}

/** The names the serving certificate needs: the Service's DNS names and, in URL mode, the URL host. */
export function webhookHosts(config: ManagerConfig): string[] {
  const svc = config.webhookServiceName;
  const ns = config.webhookServiceNamespace;
  const hosts = [`${svc}.${ns}.svc`, svc, `${svc}.${ns}`, `${svc}.${ns}.svc.cluster.local`];
  if (config.webhookUrlBase) hosts.unshift(new URL(config.webhookUrlBase).hostname.replace(/^\[|\]$/g, ''));
  return [...new Set(hosts)];
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(0, ms))))]).finally(() =>
    clearTimeout(timer),
  );
}

async function listen(app: FastifyInstance, address: BindAddress): Promise<number> {
  await app.listen({ host: address.host || '::', port: address.port });
  const a = app.server.address();
  return typeof a === 'object' && a ? a.port : address.port;
}

export async function startManager(config: ManagerConfig, options: StartOptions = {}): Promise<RunningManager> {
  const logger = createLogger({
    level: config.logLevel,
    base: { component: 'controller-manager' },
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const manager = new Manager({
    kubeConfig,
    qps: config.kubeApiQps,
    burst: config.kubeApiBurst,
    requestTimeoutMs: config.kubeApiRequestTimeoutMs,
    registry,
    logger,
    userAgent: 'cloneset-suite-controller-manager',
  });
  const identity = `${hostname()}_${randomUUID()}`;
  const namespace = config.namespace || undefined;

  // Controllers: created everywhere (their informers warm up), started only by the leader.
  const registrations = options.controllers ?? CONTROLLERS;
  const enabled = enabledControllers(config.controllers, registrations);
  const controllers: ManagedController[] = registrations
    .filter((r) => enabled.includes(r.name))
    .map((r) =>
      r.create({
        manager,
        config,
        namespace,
        maxConcurrentReconciles: concurrencyFor(config.maxConcurrentReconciles, r.name),
        featureGates: config.featureGates,
        identity,
        logger: logger.child({ controller: r.name }),
      }),
    );

  let shuttingDown = false;
  let cachesSynced = false;
  const informersStop = new AbortController();
  manager.informers.start(informersStop.signal);
  manager.informers
    .waitForCacheSync(informersStop.signal)
    .then(() => {
      cachesSynced = true;
      logger.info('caches synced');
    })
    .catch(() => undefined);

  // Webhooks: every replica serves them once it has a certificate.
  const certsStop = new AbortController();
  let certsDone: Promise<void> = Promise.resolve();
  let webhookServer: WebhookServer | undefined;
  if (config.webhookPort > 0) {
    const webhooks = admissionWebhooks({
      client: manager.client,
      featureGates: config.featureGates,
      transitionRuleWebhookAllowedPrefixes: config.transitionRuleWebhookAllowedPrefixes,
    });
    const server = new WebhookServer({
      host: config.webhookHost,
      port: config.webhookPort,
      webhooks,
      requestTimeoutMs: config.webhookRequestTimeoutMs,
      maxBodyBytes: config.webhookMaxBodyBytes,
      logger,
      metrics: createWebhookMetrics(registry),
    });
    webhookServer = server;
    const onCertificate = (c: { cert: string; key: string }): Promise<void> => server.setCertificate(c);
    certsDone = config.webhookCertDir
      ? runCertDir({ dir: config.webhookCertDir, logger, onCertificate }, certsStop.signal)
      : runSelfManagedCertificates(
          {
            client: manager.client,
            namespace: config.webhookServiceNamespace,
            secretName: config.webhookSecretName,
            configurationName: config.webhookConfigurationName,
            hosts: webhookHosts(config),
            servingValidityMs: config.webhookCertValidityMs,
            logger,
            onCertificate,
            ...(options.certCheckIntervalMs ? { checkIntervalMs: options.certCheckIntervalMs } : {}),
          },
          certsStop.signal,
        );
    certsDone = certsDone.catch((err: unknown) => logger.error({ err }, 'certificate management stopped'));
  }

  const servers: FastifyInstance[] = [];
  const ports: { metrics?: number; probes?: number; webhook?: number } = {};
  try {
    if (config.healthProbeBindAddress) {
      const probes = createProbeServer({
        healthz: { ping: () => true },
        readyz: {
          ping: () => true,
          'informer-sync': () => cachesSynced,
          ...(webhookServer ? { 'webhook-certificates': () => webhookServer.isReady() } : {}),
          'shutting-down': () => !shuttingDown,
        },
      });
      servers.push(probes);
      ports.probes = await listen(probes, config.healthProbeBindAddress);
    }
    if (config.metricsBindAddress) {
      const metrics = createMetricsServer(registry);
      servers.push(metrics);
      ports.metrics = await listen(metrics, config.metricsBindAddress);
    }
  } catch (err) {
    certsStop.abort();
    informersStop.abort();
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }
  logger.info(
    {
      identity,
      namespace: namespace ?? '(all)',
      controllers: controllers.map((c) => c.name),
      leaderElect: config.leaderElect,
      metrics: formatBindAddress(config.metricsBindAddress),
      probes: formatBindAddress(config.healthProbeBindAddress),
      webhookPort: config.webhookPort,
    },
    'controller-manager started',
  );

  // Controllers: run while leading (or always, without leader election).
  const controllersStop = new AbortController();
  let controllersDone: Promise<void> = Promise.resolve();
  const lead = async (leading: AbortSignal): Promise<void> => {
    const signal = AbortSignal.any([leading, controllersStop.signal]);
    try {
      await manager.informers.waitForCacheSync(signal);
    } catch {
      return;
    }
    if (signal.aborted) return;
    logger.info({ controllers: controllers.map((c) => c.name) }, 'starting controllers');
    const run = Promise.all(controllers.map((c) => c.start(signal))).then(() => undefined);
    controllersDone = run;
    await run;
  };
  let leader: LeaderHandle | undefined;
  if (config.leaderElect) {
    leader = startLeaderElection({
      client: manager.client,
      namespace: config.leaderElectionNamespace,
      name: config.leaderElectionId,
      identity,
      leaseDurationMs: config.leaderElectionLeaseDurationMs,
      renewDeadlineMs: config.leaderElectionRenewDeadlineMs,
      retryPeriodMs: config.leaderElectionRetryPeriodMs,
      logger,
      metrics: manager.metrics,
      lead,
    });
  } else {
    controllersDone = lead(new AbortController().signal);
  }

  let resolveFinished!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (resolveFinished = resolve));

  const shutdown = (reason: string, exitCode = 0): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    const deadline = Date.now() + config.gracefulShutdownTimeoutMs;
    logger.info({ reason, timeoutMs: config.gracefulShutdownTimeoutMs }, 'shutting down');
    void (async () => {
      // 1. No new work; in-flight reconciles get until the deadline.
      controllersStop.abort();
      for (const c of controllers) c.stop();
      if ((await withTimeout(controllersDone, deadline - Date.now())) === 'timeout') {
        logger.warn('in-flight reconciles did not finish within the graceful shutdown timeout');
      }
      // 2. Hand the lease over.
      if (leader) await leader.stop(Math.max(1_000, Math.min(5_000, deadline - Date.now())));
      // 3. Servers: webhooks finish in-flight requests; probes and metrics go last.
      certsStop.abort();
      await withTimeout(certsDone, 2_000);
      await withTimeout(webhookServer?.close() ?? Promise.resolve(), Math.max(1_000, deadline - Date.now()));
      await Promise.all(servers.map((s) => withTimeout(s.close(), 2_000)));
      // 4. Caches.
      informersStop.abort();
      await withTimeout(manager.informers.stopped(), 2_000);
      logger.info({ exitCode }, 'controller-manager stopped');
      resolveFinished(exitCode);
    })().catch((err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      resolveFinished(1);
    });
  };

  void leader?.ended.then((how) => {
    if (how === 'lost') {
      logger.error('leader election lost; exiting so a fresh process campaigns again');
      shutdown('lost leadership', 1);
    }
  });

  return {
    identity,
    logger,
    finished,
    shutdown,
    ports: () => ({ ...ports, ...(webhookServer?.port() !== undefined ? { webhook: webhookServer.port() } : {}) }),
  };
}
