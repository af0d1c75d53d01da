// The controller-manager process with only its admission webhooks doing work: URL mode on
// loopback, self-managed certificates, configurations scoped to one namespace.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  CLONESET_CONVERSION_PATH,
  CLONESET_CRD_NAME,
  FEATURE_GATE_DEFAULTS,
  NO_POD_CACHE,
  admissionWebhooks,
  handBackCrdConversion,
  readCrdConversion,
  webhookConfigurations,
} from '@cloneset-suite/controller-manager';
import { eventually, freePort, getJson, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { parseMetrics, type Scrape } from './server-window.ts';

const mainEntry = path.join(repoRoot, 'apps', 'controller-manager', 'src', 'main.ts');


export interface WebhookServer {
  urlBase: string;
  /** PEM of the CA that signed the serving certificate (from the injected caBundle). */
  ca: string;
  /** The manager's /metrics, parsed (scraping resets its event-loop delay histogram). */
  metrics: () => Promise<Scrape>;
  stop: () => Promise<void>;
}

export async function startWebhookServer(namespace: string): Promise<WebhookServer> {
  const name = `bench-${randomBytes(3).toString('hex')}`;
  const [webhookPort, probePort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const urlBase = `https://127.0.0.1:${webhookPort}`;
  const hooks = admissionWebhooks({ pods: NO_POD_CACHE, featureGates: { ...FEATURE_GATE_DEFAULTS }, transitionRuleWebhookAllowedPrefixes: [] });
  const configs = webhookConfigurations(hooks, {
    name,
    target: { urlBase },
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
    labels: { 'app.kubernetes.io/managed-by': 'cloneset-suite-bench' },
  });
  await kubectl(['apply', '--server-side', '--field-manager=cloneset-suite-bench', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: configs }));
  let child: ChildProcess | undefined;
  let output = '';
  // In URL mode, when the CloneSet CRD serves v1beta1 (stored there), the manager points its
  // conversion webhook at itself if the CRD has none. Once it has stopped, that URL answers
  // nobody, and every later namespace deletion holding a CloneSet would wait on it (the
  // namespace collector lists through v1beta1): the CRD gets back the stanza it had.
  const previousConversion = await readCrdConversion(kubectl, CLONESET_CRD_NAME);
  const handBackConversion = (): Promise<unknown> =>
    handBackCrdConversion(kubectl, CLONESET_CRD_NAME, `${urlBase}${CLONESET_CONVERSION_PATH}`, previousConversion, { restoreNone: true }).catch(() => undefined);
  const removeConfigs = (): Promise<unknown> =>
    kubectl(['delete', 'mutatingwebhookconfiguration,validatingwebhookconfiguration', name, '--ignore-not-found']).catch(() => undefined);
  try {
    // BENCH_CPU_PROF_DIR=<dir> writes a V8 CPU profile of the manager (on its graceful exit).
    const profileDir = process.env.BENCH_CPU_PROF_DIR;
    child = spawn(
      process.execPath,
      [
        ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
        mainEntry,
        `--kubeconfig=${testKubeconfigPath()}`,
        `--namespace=${namespace}`,
        '--leader-elect=false',
        `--leader-election-namespace=${namespace}`,
        '--controllers=-cloneset',
        `--metrics-bind-address=127.0.0.1:${metricsPort}`,
        `--health-probe-bind-address=127.0.0.1:${probePort}`,
        '--webhook-host=127.0.0.1',
        `--webhook-port=${webhookPort}`,
        `--webhook-url-base=${urlBase}`,
        `--webhook-configuration-name=${name}`,
        `--webhook-secret-name=${name}-certs`,
        // The bench's rule server listens on 127.0.0.1, refused to webhooks unless loopback is allowed.
        '--transition-rule-webhook-allow-addresses=loopback',
        '--log-level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    await eventually('the controller-manager /readyz', async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`).catch(() => undefined))?.status === 200, {
      timeoutMs: 60_000,
    });
    const caBundle = await eventually('the injected caBundle', async () => {
      const cfg = await getJson<{ webhooks: { clientConfig: { caBundle?: string } }[] }>(['mutatingwebhookconfiguration', name]);
      return cfg?.webhooks[0]?.clientConfig.caBundle || undefined;
    });
    const running = child;
    return {
      urlBase,
      ca: Buffer.from(caBundle, 'base64').toString('utf8'),
      metrics: async () => {
        const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
        if (res.status !== 200) throw new Error(`controller-manager /metrics: HTTP ${res.status}`);
        return parseMetrics(await res.text());
      },
      stop: async () => {
        await removeConfigs();
        if (running.exitCode === null) {
          const exited = new Promise((r) => running.once('exit', r));
          running.kill('SIGTERM');
          const timer = setTimeout(() => running.kill('SIGKILL'), 15_000);
          await exited;
          clearTimeout(timer);
        }
        await handBackConversion();
      },
    };
  } catch (err) {
    child?.kill('SIGKILL');
    await removeConfigs();
    await handBackConversion();
    throw new Error(`${(err as Error).message}\ncontroller-manager output:\n${output.slice(-4000)}`, { cause: err });
  }
}
