// The bench's handle on a CloneSet controller child process.
import { defaultConfig } from '@cloneset-suite/controller-manager';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildReply, ChildRequest, ChildStartup, ControllerChildOptions, MemoryReading, WriteSnapshot } from './controller-protocol.ts';

const childEntry = fileURLToPath(new URL('./controller-child.ts', import.meta.url));

/** The kube-controller-manager of the local cluster runs with --kube-api-qps=5000 --kube-api-burst=10000. */
export const UNTHROTTLED = { qps: 5000, burst: 10000 } as const;
/** The controller-manager's shipped defaults (--kube-api-qps / --kube-api-burst). */
export const SHIPPED_DEFAULTS = { qps: 50, burst: 100 } as const;

const shipped = defaultConfig();
/** The controller-manager's default Lease timings (--leader-election-lease-duration, -renew-deadline, -retry-period). */
export const SHIPPED_LEASE_TIMINGS = {
  leaseDurationMs: shipped.leaderElectionLeaseDurationMs,
  renewDeadlineMs: shipped.leaderElectionRenewDeadlineMs,
  retryPeriodMs: shipped.leaderElectionRetryPeriodMs,
} as const;

/**
 * Extra Node and V8 flags for every CloneSet controller child (`BENCH_CONTROLLER_NODE_FLAGS`, split
 * on spaces, e.g. `--max-semi-space-size=64`): a garbage-collector setting is tried on the bench
 * without a code change, and the report's versions line names the flags.
 */
export function controllerNodeFlags(env: NodeJS.ProcessEnv): string[] {
  return (env.BENCH_CONTROLLER_NODE_FLAGS ?? '').split(' ').filter(Boolean);
}

/** The child's execArgv: the bench's own, gc() callable, the extra flags, and a CPU profile when asked. */
export function controllerChildExecArgv(env: NodeJS.ProcessEnv, parent: readonly string[]): string[] {
  // BENCH_CPU_PROF_DIR=<dir> writes a V8 CPU profile of each controller child (open it in Chrome DevTools).
  const profileDir = env.BENCH_CPU_PROF_DIR;
  // --expose-gc only makes gc() callable: the child collects garbage for a memory reading, never otherwise.
  return [...parent, '--expose-gc', ...controllerNodeFlags(env), ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
}

type Answered = Extract<ChildReply, { id: number }>;

export class ControllerProcess {
  private readonly child: ChildProcess;
  private nextId = 0;
  private readonly pending = new Map<number, (reply: Answered) => void>();
  private readonly exited: Promise<void>;
  private stopReason: ((reason: string) => void) | undefined;
  private stopped: string | undefined;
  /** Resolves with the reason once the child's Manager stopped (at the parent's stop(), or e.g. 'lost-leadership'). */
  readonly managerStopped: Promise<string>;

  private constructor(child: ChildProcess) {
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.managerStopped = new Promise((resolve) => (this.stopReason = resolve));
    void this.managerStopped.then((reason) => (this.stopped = reason));
    child.on('message', (raw: unknown) => {
      const msg = raw as ChildReply;
      if (msg.type === 'stopped') this.stopReason?.(msg.reason);
      else if ('id' in msg) {
        this.pending.get(msg.id)?.(msg);
        this.pending.delete(msg.id);
      }
    });
  }

  static async start(options: Partial<ControllerChildOptions> & { namespace: string }): Promise<ControllerProcess> {
    const full: ControllerChildOptions = { ...UNTHROTTLED, resyncMs: 0, maxConcurrentReconciles: 1, ...options };
    const child = fork(childEntry, [JSON.stringify(full)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: controllerChildExecArgv(process.env, process.execArgv) });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the controller child exited with ${code} before starting`)));
    });
    return new ControllerProcess(child);
  }

  /** Why the child's Manager stopped, once it has (e.g. 'lost-leadership'). */
  get stoppedFor(): string | undefined {
    return this.stopped;
  }

  /** Resolves with `work`'s value, or rejects as soon as the child's Manager stops (a lost lease ends a run at once). */
  unlessStopped<T>(work: Promise<T>): Promise<T> {
    work.catch(() => undefined); // when the stop wins, `work` is left to fail on its own
    const stopped = this.managerStopped.then((reason) => Promise.reject(new Error(`the controller's Manager stopped: ${reason}`)));
    return Promise.race([work, stopped]);
  }

  async snapshot(): Promise<WriteSnapshot> {
    const reply = await this.request('snapshot');
    return (reply as Extract<Answered, { type: 'snapshot' }>).snapshot;
  }

  /** Its memory now and after a full garbage collection. */
  async memory(): Promise<MemoryReading> {
    const reply = await this.request('memory');
    return (reply as Extract<Answered, { type: 'memory' }>).memory;
  }

  /** When it synced its caches and finished its first reconcile, in ms since its process started. */
  async startup(): Promise<ChildStartup> {
    const reply = await this.request('startup');
    return (reply as Extract<Answered, { type: 'startup' }>).startup;
  }

  /** Starts the child's CPU profiler; `stopProfile` answers with what it recorded since. */
  async startProfile(): Promise<void> {
    await this.request('profile-start');
  }

  async stopProfile(): Promise<unknown> {
    const reply = await this.request('profile-stop');
    return (reply as Extract<Answered, { type: 'profile' }>).profile;
  }

  private request(type: Exclude<ChildRequest['type'], 'stop'>): Promise<Answered> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, resolve);
      const req: ChildRequest = { type, id };
      this.child.send(req, (err) => err && reject(err));
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const req: ChildRequest = { type: 'stop' };
    this.child.send(req);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}
