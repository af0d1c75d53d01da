// The controller-manager as users run it (node on its main entry, a separate process), for the
// chaos scenarios: SIGKILL it and start it again on the same ports, lease and certificates, or
// run several replicas behind one webhook address. The webhook configurations are URL mode and
// scoped to the test namespace, so a dead manager refuses nothing outside it.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { createTestNamespace, eventually, freePort, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { MANAGER_MAIN, installCrds, installScopedWebhooks, localManagerArgs } from '@cloneset-suite/controller-manager';

/**
 * CHAOS_BREAK=<name> breaks one guarantee on purpose, to show the scenario checking it fails:
 * admission (no validating webhook), two-leaders (the standby runs without leader election),
 * lost-delete (the fault proxy answers pod deletes with success without forwarding them),
 * rbac (the generated ClusterRole loses pod creation), body-limit (the webhook body limit is
 * raised above what the security scenario sends).
 */
export const breaking = (name: 'admission' | 'two-leaders' | 'lost-delete' | 'rbac' | 'body-limit'): boolean => process.env.CHAOS_BREAK === name;

const run = (args: readonly string[], input?: string): Promise<string> => kubectl(args, input);

export interface ReplicaOptions {
  /** The Lease's namespace, and the one namespace watched unless watchNamespace says otherwise. */
  namespace: string;
  /** '' watches every namespace (its webhook configurations must still be scoped: installForNamespaces). */
  watchNamespace?: string;
  /** Lease, webhook configuration and Secret name shared by every replica. */
  name: string;
  /** The address the apiserver calls for admission (a replica's port, or a proxy in front of several). */
  webhookUrlPort: number;
  /** This replica's own webhook port (defaults to webhookUrlPort). */
  webhookPort?: number;
  /** The kubeconfig the manager uses (a fault proxy's, say); defaults to the suite's. */
  kubeconfig?: string;
  extraArgs?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

/** One manager process that can be killed and started again with the same identity and ports. */
export class ManagerReplica {
  private child: ChildProcess | undefined;
  private exitedPromise: Promise<void> = Promise.resolve();
  private alive = false;
  private log = '';
  /** Set by kill() and stop(): the exit that follows is ours, not one for the supervisor. */
  private exitRequested = false;
  private restarting: Promise<void> | undefined;
  readonly probesPort: number;
  readonly metricsPort: number;
  starts = 0;
  /** Exits nobody asked for (lost leadership under load, a crash), each followed by a restart. */
  readonly unexpectedExits: { at: Date; code: number | null; signal: string | null }[] = [];

  private readonly o: ReplicaOptions;

  private constructor(o: ReplicaOptions, ports: { probes: number; metrics: number }) {
    this.o = o;
    this.probesPort = ports.probes;
    this.metricsPort = ports.metrics;
  }

  static async create(o: ReplicaOptions): Promise<ManagerReplica> {
    return new ManagerReplica(o, { probes: await freePort(), metrics: await freePort() });
  }

  args(): string[] {
    return localManagerArgs({
      kubeconfig: this.o.kubeconfig ?? testKubeconfigPath(),
      namespace: this.o.watchNamespace ?? this.o.namespace,
      leaseNamespace: this.o.namespace,
      name: this.o.name,
      lease: { duration: '6s', renewDeadline: '4s', retryPeriod: '1s' },
      ports: { webhook: this.o.webhookPort ?? this.o.webhookUrlPort, metrics: this.metricsPort, health: this.probesPort },
      webhookUrlPort: this.o.webhookUrlPort,
      gracefulShutdownTimeout: '5s',
      extraArgs: [...(process.env.CHAOS_MANAGER_LOG_LEVEL ? [`--log-level=${process.env.CHAOS_MANAGER_LOG_LEVEL}`] : []), ...(this.o.extraArgs ?? [])],
    });
  }

  get pid(): number | undefined {
    return this.alive ? this.child?.pid : undefined;
  }

  output(): string {
    return this.log;
  }

  /**
   * Starts the process; resolves once `probe` answers 200: /readyz (caches synced, certificates
   * loaded), or /healthz for a standby replica whose caches start only when it leads.
   */
  async start(timeoutMs = 120_000, probe: 'readyz' | 'healthz' = 'readyz'): Promise<void> {
    if (this.pid !== undefined) throw new Error('already running');
    const child = spawn(process.execPath, [MANAGER_MAIN, ...this.args()], { cwd: repoRoot, env: this.o.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.starts++;
    this.record(`\n--- start ${this.starts} (pid ${child.pid}) ---\n`);
    child.stdout?.on('data', (c: Buffer) => this.record(c.toString()));
    child.stderr?.on('data', (c: Buffer) => this.record(c.toString()));
    this.alive = true;
    this.exitRequested = false;
    this.exitedPromise = new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        this.alive = false;
        resolve();
        if (!this.exitRequested) this.superviseExit(code, signal, probe);
      }),
    );
    await this.ready(timeoutMs, probe);
  }

  /**
   * Plays the Deployment's restart policy: a manager that exits on its own (it stops on purpose
   * when it cannot renew its Lease, as controller-runtime does) is started again a second later.
   */
  private superviseExit(code: number | null, signal: string | null, probe: 'readyz' | 'healthz'): void {
    this.unexpectedExits.push({ at: new Date(), code, signal });
    this.record(`\n--- exited on its own (code ${code}, signal ${signal}); restarting in 1 s ---\n`);
    this.restarting = new Promise<void>((r) => setTimeout(r, 1_000))
      .then(() => (this.exitRequested || this.pid !== undefined ? undefined : this.start(120_000, probe)))
      .catch((err: unknown) => this.record(`\n--- restart failed: ${String(err)} ---\n`))
      .finally(() => (this.restarting = undefined));
  }

  /** Resolves once a restart the supervisor began (if any) has finished. */
  async settled(): Promise<void> {
    while (this.restarting) await this.restarting;
  }

  /**
   * Keeps the output for failure messages; CHAOS_MANAGER_LOG_DIR=<dir> also appends it to
   * <dir>/<lease name>.log, for reading a long run after the fact.
   */
  private record(text: string): void {
    this.log += text;
    const dir = process.env.CHAOS_MANAGER_LOG_DIR;
    if (dir) appendFileSync(path.join(dir, `${this.o.name}.log`), text);
  }

  async ready(timeoutMs = 120_000, probe: 'readyz' | 'healthz' = 'readyz'): Promise<void> {
    await eventually(`the controller-manager /${probe}`, async () => {
      if (!this.alive) throw new Error(`exited with ${this.child?.exitCode ?? this.child?.signalCode}`);
      return (await fetch(`http://127.0.0.1:${this.probesPort}/${probe}`).catch(() => undefined))?.status === 200;
    }, { timeoutMs, intervalMs: 100 }).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n--- controller-manager output (tail) ---\n${this.log.slice(-4000)}`, { cause: err });
    });
  }

  /** SIGKILL: no shutdown hooks, no lease release, in-flight writes cut. */
  async kill(): Promise<void> {
    await this.settled();
    if (this.pid === undefined) return;
    this.exitRequested = true;
    this.child!.kill('SIGKILL');
    await this.exitedPromise;
  }

  async stop(): Promise<void> {
    this.exitRequested = true;
    await this.settled();
    if (this.pid === undefined) return;
    this.exitRequested = true; // again: a restart that was already under way reset it
    this.child!.kill('SIGTERM');
    await this.exitedPromise;
  }

  async metrics(): Promise<string> {
    return (await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`)).text();
  }
}

/** CRDs and the namespace-scoped URL-mode webhook configurations for `name`, pointing at `port`. */
export async function installForNamespace(namespace: string, name: string, port: number): Promise<() => Promise<void>> {
  return installForNamespaces([namespace], name, port);
}

/**
 * The same for several namespaces: a manager watching every namespace is asked about writes in
 * these only, so the other suites' namespaces never depend on it.
 */
export async function installForNamespaces(namespaces: readonly string[], name: string, port: number): Promise<() => Promise<void>> {
  await installCrds(run, path.join(repoRoot, 'crds'));
  // CHAOS_BREAK=admission: no validating webhook, to see the hostile-input scenario fail.
  return installScopedWebhooks(run, { name, port, namespaces, keep: (c) => !breaking('admission') || c.kind !== 'ValidatingWebhookConfiguration' });
}

/** Waits until the webhooks admit a CloneSet in the namespace (the caBundle reached the apiserver). */
export async function waitForAdmission(namespace: string): Promise<void> {
  await eventually('the webhooks admitting a CloneSet', async () => {
    await kubectl(['apply', '--dry-run=server', '-n', namespace, '-f', path.join(repoRoot, 'examples/cloneset.yaml')]);
    return true;
  }, { timeoutMs: 60_000, intervalMs: 500 });
}

export interface ChaosEnvironment {
  namespace: string;
  manager: ManagerReplica;
  teardown(): Promise<void>;
}

type ReplicaChoices = Partial<Omit<ReplicaOptions, 'namespace' | 'name' | 'webhookUrlPort'>>;

/**
 * A fresh namespace, its webhook configurations and one ready manager replica watching it.
 * `prepare` runs once the namespace exists, before the manager starts (to give it its own
 * credentials, say), and may add replica options.
 */
export async function startChaosEnvironment(
  prefix: string,
  replica: ReplicaChoices = {},
  prepare?: (namespace: string, name: string) => Promise<ReplicaChoices>,
): Promise<ChaosEnvironment> {
  const ns = await createTestNamespace(prefix);
  const port = await freePort();
  const name = `${prefix}-${ns.name.slice(-6)}`;
  const uninstall = await installForNamespace(ns.name, name, port);
  const prepared = prepare ? await prepare(ns.name, name) : {};
  const manager = await ManagerReplica.create({ ...replica, ...prepared, namespace: ns.name, name, webhookUrlPort: port });
  await manager.start();
  await waitForAdmission(ns.name);
  return {
    namespace: ns.name,
    manager,
    teardown: async () => {
      await manager.stop();
      await uninstall();
      await ns.remove();
    },
  };
}
