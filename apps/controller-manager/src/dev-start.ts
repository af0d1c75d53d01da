// `npm start`: bring up (or reuse) the local cluster, install the CRDs and the URL-mode webhook
// configurations (and, when the CloneSet CRD serves v1beta1, its conversion webhook URL), and run
// the controller-manager against it in this process. Extra arguments are controller-manager
// flags (`npm start -- --log-level=debug`). With --kubeconfig (or inside a pod) it runs against
// that cluster instead and never starts a local one. The cluster outlives this process (even
// SIGKILL); `npm run cluster:down` stops it.
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { kubeconfigPath, kubectl, repoRoot, startCluster } from '@cloneset-suite/local-cluster';
import { startManager, type RunningManager } from './app.ts';
import { helpText } from './config/help.ts';
import { ConfigError, loadConfig } from './config/load.ts';
import { envName } from './config/flags.ts';
import { controllerNames } from './controllers/registry.ts';
import { installLastResort } from './last-resort.ts';
import type { CrdConversionState } from './certs/crd-conversion.ts';
import { CLONESET_CONVERSION_PATH } from './webhooks/cloneset-conversion.ts';
import {
  CLONESET_CRD_NAME,
  ensureNamespace,
  handBackCrdConversion,
  installCrds,
  installWebhookConfigurations,
  readCrdConversion,
  urlModeConfigurations,
  type Kubectl,
} from './local-install.ts';

const SYSTEM_NAMESPACE = 'cloneset-suite-system';
const LOCAL_ALLOWED_ADDRESSES = 'loopback';
const userArgs = process.argv.slice(2);
const known = controllerNames();

/** The parent pid of `pid` (Linux /proc), if it can be read. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function fail(message: string, code: number): never {
  process.stderr.write(`npm start: ${message}\n`);
  process.exit(code);
}

function load(argv: readonly string[]) {
  try {
    return loadConfig({ argv, knownControllers: known });
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }
}

const probe = load(userArgs);
if (probe.kind === 'help') {
  process.stdout.write(helpText(known));
  process.exit(0);
}
const external = probe.config.kubeconfig !== undefined || process.env.KUBERNETES_SERVICE_HOST !== undefined;

let argv: string[];
/** Set when this process pointed the CloneSet CRD's conversion at itself: what to hand it back to. */
let conversion: { run: Kubectl; url: string; previous: CrdConversionState | undefined } | undefined;
if (external) {
  argv = userArgs;
  process.stderr.write(`[start] using ${probe.config.kubeconfig ?? 'the in-cluster service account'}; no local cluster is started\n`);
} else {
  if (process.env[envName('kubeconfig')]) fail(`unset ${envName('kubeconfig')} or pass --kubeconfig`, 2);
  await startCluster();
  // Loopback is refused to PodTransitionRule webhooks by default; on a developer's machine the
  // rule servers (and this process's own webhooks) live there. Later arguments override it.
  const local = [
    '--kubeconfig',
    kubeconfigPath,
    '--leader-election-namespace',
    SYSTEM_NAMESPACE,
    '--webhook-host',
    '127.0.0.1',
    '--metrics-bind-address',
    '127.0.0.1:8080',
    '--health-probe-bind-address',
    '127.0.0.1:8081',
    `--transition-rule-webhook-allow-addresses=${LOCAL_ALLOWED_ADDRESSES}`,
  ];
  const first = load([...local, ...userArgs]);
  if (first.kind !== 'config') process.exit(0);
  const urlBase = first.config.webhookUrlBase ?? `https://127.0.0.1:${first.config.webhookPort}`;
  argv = [...local, '--webhook-url-base', urlBase, ...userArgs];
  const final = load(argv);
  if (final.kind !== 'config') process.exit(0);
  const run = (args: readonly string[], input?: string): Promise<string> => kubectl(args, input, kubeconfigPath);
  const crdDir = path.join(repoRoot, 'crds');
  if (!existsSync(crdDir)) fail(`no CRDs in ${crdDir} (npm run gen)`, 1);
  process.stderr.write('[start] installing the CRDs and URL-mode webhook configurations...\n');
  const url = `${urlBase.replace(/\/+$/, '')}${CLONESET_CONVERSION_PATH}`;
  // Read before the CRD is applied: what to hand conversion back to when this process stops.
  const previous = await readCrdConversion(run, CLONESET_CRD_NAME);
  const converts = final.config.webhookPort > 0;
  const crds = await installCrds(run, crdDir, { optIn: final.config.serveV1beta1, ...(converts ? { conversion: { url } } : {}) });
  if (crds.notice) process.stderr.write(`[start] ${crds.notice}\n`);
  else if (crds.servesV1beta1) process.stderr.write('[start] --serve-v1beta1: the CloneSet CRD serves apps.kruise.io/v1beta1 too, converted by this manager (kubectl\'s default version is now v1beta1)\n');
  await ensureNamespace(run, SYSTEM_NAMESPACE);
  if (converts) {
    await installWebhookConfigurations(run, urlModeConfigurations(final.config));
    if (crds.servesV1beta1) conversion = { run, url, previous };
  }
}

const loaded = load(argv);
if (loaded.kind !== 'config') process.exit(0);
if (loaded.config.transitionRuleWebhookAllowAddresses.includes('loopback')) {
  process.stderr.write('[start] PodTransitionRule webhooks may call loopback addresses (127.0.0.0/8, ::1): --transition-rule-webhook-allow-addresses=loopback, for local rule servers; a deployed manager refuses them\n');
}
let manager: RunningManager;
try {
  manager = startManager(loaded.config);
} catch (err) {
  fail(`cannot start the controller-manager: ${(err as Error).message}`, 1);
}
installLastResort(manager.logger);

let signals = 0;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (++signals > 1) process.exit(1);
    manager.shutdown(signal);
  });
}

// Started by npm (npm -> sh -> node): when npm is killed, even with SIGKILL, stop too, so the
// next `npm start` finds the ports free. The cluster keeps running either way.
const watched = [process.ppid, ...(process.env.npm_lifecycle_event ? [parentOf(process.ppid)] : [])].filter((p): p is number => p !== undefined && p > 1);
setInterval(() => {
  if (watched.some((pid) => !alive(pid)) || process.ppid === 1) manager.shutdown('npm start was stopped');
}, 1_000).unref();

if (!external) {
  const rel = path.relative(process.cwd(), kubeconfigPath) || kubeconfigPath;
  const examples = path.relative(process.cwd(), path.join(repoRoot, 'examples')) || 'examples';
  process.stderr.write(
    [
      '',
      'The controller-manager runs against the local cluster. In another shell:',
      '',
      `  export KUBECONFIG=${rel}`,
      `  kubectl apply -f ${examples}/cloneset.yaml`,
      '  kubectl get clone sample',
      '  kubectl edit clone sample',
      '',
      'Ctrl-C stops the manager (the cluster keeps running; `npm start` again reuses it);',
      '`npm run cluster:down` deletes the cluster.',
      '',
      '',
    ].join('\n'),
  );
}
const exitCode = await manager.finished;
if (conversion) {
  const c = conversion;
  await handBackCrdConversion(c.run, CLONESET_CRD_NAME, c.url, c.previous).then(
    (handed) => handed && process.stderr.write('[start] handed the CloneSet conversion webhook back to the one it pointed at before\n'),
    () => undefined,
  );
}
process.exit(exitCode);
