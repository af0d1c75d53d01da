// The manager process for a cluster suite: watching only the suite's namespace, serving its
// webhooks in URL mode on free local ports, with webhook configurations (own names) that only
// that namespace's objects reach, so suites sharing the cluster never call it.
import { randomBytes } from 'node:crypto';
import { freePort, kubectl, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { loadConfig } from '../../src/config/load.ts';
import { controllerNames } from '../../src/controllers/registry.ts';
import { CLONESET_CRD_NAME, handBackCrdConversion, installWebhookConfigurations, pointCrdConversion, readCrdConversion, urlModeConfigurations } from '../../src/local-install.ts';
import { CLONESET_CONVERSION_PATH } from '../../src/webhooks/cloneset-conversion.ts';
import { spawnManager, type ManagerProcess } from './process.ts';

export interface UrlModeManager {
  /** The running process (a new one after restart()). */
  readonly process: ManagerProcess;
  metricsPort: number;
  /** Name of the webhook configurations, the certificate Secret's prefix and the lease. */
  configurationName: string;
  /** Where the apiserver reaches its webhook server. */
  webhookUrlBase: string;
  /** SIGTERM, wait for the exit, delete the webhook configurations. */
  stop: () => Promise<void>;
  /** SIGKILL (a crash), wait for the exit, run `whileDown`, start a new process with the same flags. */
  restart: (whileDown?: () => void) => Promise<void>;
}

export interface UrlModeOptions {
  /**
   * Point the CloneSet CRD's conversion webhook at this manager before it starts (as `npm start`
   * does) and hand it back when it stops. Without it the CRD keeps converting through the
   * run's shared webhook.
   */
  convert?: boolean;
}

export async function startUrlModeManager(namespace: string, prefix: string, extraArgs: readonly string[] = [], options: UrlModeOptions = {}): Promise<UrlModeManager> {
  const configurationName = `${prefix}-${randomBytes(3).toString('hex')}`;
  const webhookPort = await freePort();
  const metricsPort = await freePort();
  const args = [
    `--kubeconfig=${testKubeconfigPath()}`,
    `--namespace=${namespace}`,
    `--leader-election-namespace=${namespace}`,
    `--leader-election-id=${configurationName}`,
    `--metrics-bind-address=127.0.0.1:${metricsPort}`,
    `--health-probe-bind-address=127.0.0.1:${await freePort()}`,
    '--webhook-host=127.0.0.1',
    `--webhook-port=${webhookPort}`,
    `--webhook-url-base=https://127.0.0.1:${webhookPort}`,
    `--webhook-configuration-name=${configurationName}`,
    `--webhook-secret-name=${configurationName}-certs`,
    // The tests' rule servers listen on 127.0.0.1, refused to webhooks unless loopback is allowed.
    '--transition-rule-webhook-allow-addresses=loopback',
    ...extraArgs,
  ];
  const loaded = loadConfig({ argv: args, env: {}, knownControllers: controllerNames() });
  if (loaded.kind !== 'config') throw new Error('unexpected help');
  await installWebhookConfigurations(
    (a, input) => kubectl(a, input),
    urlModeConfigurations(loaded.config, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } }),
  );
  const run = (a: readonly string[], input?: string) => kubectl(a, input);
  const conversionUrl = `https://127.0.0.1:${webhookPort}${CLONESET_CONVERSION_PATH}`;
  const previousConversion = options.convert ? await readCrdConversion(run, CLONESET_CRD_NAME) : undefined;
  if (options.convert) await pointCrdConversion(run, CLONESET_CRD_NAME, { url: conversionUrl });
  let current = spawnManager(args);
  return {
    get process() {
      return current;
    },
    metricsPort,
    configurationName,
    webhookUrlBase: `https://127.0.0.1:${webhookPort}`,
    stop: async () => {
      if (current.child.exitCode === null) {
        current.child.kill('SIGTERM');
        await current.exited;
      }
      await kubectl(['delete', 'mutatingwebhookconfiguration,validatingwebhookconfiguration', configurationName, '--ignore-not-found']).catch(() => undefined);
      if (options.convert) await handBackCrdConversion(run, CLONESET_CRD_NAME, conversionUrl, previousConversion).catch(() => undefined);
    },
    restart: async (whileDown) => {
      if (current.child.exitCode === null) {
        current.child.kill('SIGKILL');
        await current.exited;
      }
      whileDown?.();
      current = spawnManager(args);
    },
  };
}
