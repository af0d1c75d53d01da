// The managers of the sharding scenario, as users run them: controller-manager processes (its
// main entry, not the bench's in-process controller child), with their admission webhooks in URL
// mode scoped to the run's namespace behind one loopback front. Either one leader-elected manager,
// or N shards of a ControllerRing limited to the namespace with the real sharder of
// kubernetes-controller-sharding beside them (built once by the local cluster's build-sharder.sh).
import { mkdtempSync, createWriteStream, type WriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MANAGER_MAIN, installScopedWebhooks, localManagerArgs, startTcpFront, type TcpFront } from '@cloneset-suite/controller-manager';
import { installRing, portsForShard, startSharder, startShards, SupervisedProcess, type LocalSharder, type ShardPorts } from '@cloneset-suite/controller-manager/dev-ring';
import { ensureSharder, freePort, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { sleep } from './kube.ts';
import { parseManagerMetrics, type ManagerReading } from './manager-metrics.ts';

const run = (args: readonly string[], input?: string): Promise<string> => kubectl(args, input);
const READY_TIMEOUT_MS = 120_000;

export interface FleetOptions {
  namespace: string;
  /** 0: one leader-elected manager; N: N shards of a ring and the sharder. */
  shards: number;
  /** Client limits far above the shipped qps 50 / burst 100. */
  unthrottled: boolean;
  log: (line: string) => void;
}

interface Member {
  name: string;
  process: SupervisedProcess;
  ports: ShardPorts;
}

const UNTHROTTLED_ARGS = ['--kube-api-qps=5000', '--kube-api-burst=10000'];

export class ManagerFleet {
  readonly ring: string | undefined;
  private readonly members: Member[] = [];
  private sharder: LocalSharder | undefined;
  private front: TcpFront | undefined;
  private readonly o: FleetOptions;
  private readonly name: string;
  private readonly out: WriteStream;
  private frontPort = 0;
  private removeWebhooks: (() => Promise<void>) | undefined;

  private constructor(o: FleetOptions) {
    this.o = o;
    this.name = `bench-${o.namespace.slice(-6)}`;
    this.ring = o.shards > 0 ? this.name : undefined;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-fleet-'));
    this.out = createWriteStream(path.join(dir, 'managers.log'));
    o.log(`managers' and sharder's output: ${path.join(dir, 'managers.log')}`);
  }

  static async start(o: FleetOptions): Promise<ManagerFleet> {
    const fleet = new ManagerFleet(o);
    try {
      await fleet.begin();
    } catch (err) {
      await fleet.stop();
      throw err;
    }
    return fleet;
  }

  /** The shard label's key on the ring's objects (undefined for one manager). */
  get shardLabel(): string | undefined {
    return this.ring && `shard.alpha.sharding.timebertt.dev/${this.ring}`;
  }

  private line(who: string): (line: string) => void {
    return (l) => void this.out.write(`[${who}] ${l}\n`);
  }

  private async begin(): Promise<void> {
    const { namespace, shards } = this.o;
    this.frontPort = await freePort();
    this.removeWebhooks = await installScopedWebhooks(run, { name: this.name, port: this.frontPort, namespaces: [namespace] });
    if (this.ring) {
      const build = await ensureSharder();
      await installRing(run, build, this.ring, [namespace]);
      this.sharder = await startSharder(build, { dir: mkdtempSync(path.join(os.tmpdir(), 'bench-sharder-')), kubeconfig: testKubeconfigPath(), line: this.line('sharder') });
    }
    const ports = await Promise.all(Array.from({ length: Math.max(1, shards) }, portsForShard));
    this.front = await startTcpFront(this.frontPort, ports.map((p) => p.webhook));
    if (this.ring) {
      const started = startShards({ ring: this.ring, kubeconfig: testKubeconfigPath(), leaseNamespace: namespace, namespace, ports: { front: this.frontPort, shards: ports }, extraArgs: this.extraArgs(), line: (s, l) => this.line(s)(l) });
      started.forEach((p, i) => this.members.push({ name: p.name, process: p, ports: ports[i]! }));
      await this.waitAvailable(shards);
    } else {
      const args = localManagerArgs({ kubeconfig: testKubeconfigPath(), leaseNamespace: namespace, namespace, name: this.name, ports: ports[0]!, webhookUrlPort: this.frontPort, extraArgs: this.extraArgs() });
      const p = new SupervisedProcess({ name: 'manager', command: process.execPath, args: [MANAGER_MAIN, ...args], cwd: repoRoot, line: this.line('manager') }).start();
      this.members.push({ name: 'manager', process: p, ports: ports[0]! });
    }
    await Promise.all(this.members.map((m) => this.waitReady(m)));
  }

  private extraArgs(): string[] {
    return [`--webhook-configuration-name=${this.name}`, `--webhook-secret-name=${this.name}-certs`, ...(this.o.unthrottled ? UNTHROTTLED_ARGS : [])];
  }

  private async waitReady(m: Member): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const status = await fetch(`http://127.0.0.1:${m.ports.health}/readyz`).then((r) => r.status, () => 0);
      if (status === 200) return;
      await sleep(250);
    }
    throw new Error(`${m.name} was not ready within ${READY_TIMEOUT_MS / 1000} s`);
  }

  /** Until the ControllerRing counts `n` available shards (the sharder assigns only to those). */
  async waitAvailable(n: number, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
    if (!this.ring) return;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const available = Number(await run(['get', 'controllerring', this.ring, '-o', 'jsonpath={.status.availableShards}']).catch(() => '0'));
      if (available === n) return;
      if (Date.now() > deadline) throw new Error(`the ControllerRing ${this.ring} has ${available} available shards, not ${n}, after ${timeoutMs / 1000} s`);
      await sleep(500);
    }
  }

  /** The members running now, by name. */
  running(): string[] {
    return this.members.filter((m) => m.process.running).map((m) => m.name);
  }

  /** Each running member's metrics, by name. */
  async readings(): Promise<Map<string, ManagerReading>> {
    const running = this.members.filter((m) => m.process.running);
    const texts = await Promise.all(running.map((m) => fetch(`http://127.0.0.1:${m.ports.metrics}/metrics`).then((r) => r.text(), () => '')));
    return new Map(running.map((m, i) => [m.name, parseManagerMetrics(texts[i]!)]));
  }

  /** SIGKILL, not started again: the shard is lost as with its node. */
  async kill(name: string): Promise<void> {
    const m = this.members.find((x) => x.name === name);
    if (!m) throw new Error(`no member ${name}`);
    await m.process.kill(false);
  }

  /** A new shard joins the running ring (its webhook outside the front: the others serve admission). */
  async addShard(): Promise<string> {
    if (!this.ring) throw new Error('one manager has no ring to join');
    const ports = await portsForShard();
    const [p] = startShards({ ring: this.ring, kubeconfig: testKubeconfigPath(), leaseNamespace: this.o.namespace, namespace: this.o.namespace, ports: { front: this.frontPort, shards: [ports] }, from: this.members.length, extraArgs: this.extraArgs(), line: (s, l) => this.line(s)(l) });
    const m = { name: p!.name, process: p!, ports };
    this.members.push(m);
    await this.waitReady(m);
    return m.name;
  }

  /** Managers first (each releases its Lease), then the sharder, the front, the webhook configurations and the ring. */
  async stop(): Promise<void> {
    await Promise.all(this.members.map((m) => m.process.stop()));
    await this.sharder?.process.stop();
    await this.front?.close();
    await this.removeWebhooks?.();
    if (this.ring) await run(['delete', 'controllerring', this.ring, '--ignore-not-found']).catch(() => undefined);
    await new Promise<void>((r) => this.out.end(() => r()));
  }
}

