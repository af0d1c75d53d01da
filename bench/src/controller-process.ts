// The bench's handle on a CloneSet controller child process.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildReply, ChildRequest, ControllerChildOptions, WriteSnapshot } from './controller-protocol.ts';

const childEntry = fileURLToPath(new URL('./controller-child.ts', import.meta.url));

/** The kube-controller-manager of the local cluster runs with --kube-api-qps=5000 --kube-api-burst=10000. */
export const UNTHROTTLED = { qps: 5000, burst: 10000 } as const;
/** The controller-manager's shipped defaults (--kube-api-qps / --kube-api-burst). */
export const SHIPPED_DEFAULTS = { qps: 50, burst: 100 } as const;

export class ControllerProcess {
  private readonly child: ChildProcess;
  private nextId = 0;
  private readonly pending = new Map<number, (s: WriteSnapshot) => void>();
  private readonly pendingProfiles = new Map<number, (p: unknown) => void>();
  private readonly exited: Promise<void>;
  private stopReason: ((reason: string) => void) | undefined;
  /** Resolves with the reason once the child's Manager stopped (at the parent's stop(), or e.g. 'lost-leadership'). */
  readonly managerStopped: Promise<string>;

  private constructor(child: ChildProcess) {
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.managerStopped = new Promise((resolve) => (this.stopReason = resolve));
    child.on('message', (raw: unknown) => {
      const msg = raw as ChildReply;
      if (msg.type === 'snapshot') {
        this.pending.get(msg.id)?.(msg.snapshot);
        this.pending.delete(msg.id);
      } else if (msg.type === 'profile') {
        this.pendingProfiles.get(msg.id)?.(msg.profile);
        this.pendingProfiles.delete(msg.id);
      } else if (msg.type === 'stopped') {
        this.stopReason?.(msg.reason);
      }
    });
  }

  static async start(options: Partial<ControllerChildOptions> & { namespace: string }): Promise<ControllerProcess> {
    const full: ControllerChildOptions = { ...UNTHROTTLED, resyncMs: 0, maxConcurrentReconciles: 1, ...options };
    // BENCH_CPU_PROF_DIR=<dir> writes a V8 CPU profile of each controller child (open it in Chrome DevTools).
    const profileDir = process.env.BENCH_CPU_PROF_DIR;
    const execArgv = profileDir ? [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${profileDir}`] : process.execArgv;
    const child = fork(childEntry, [JSON.stringify(full)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the controller child exited with ${code} before starting`)));
    });
    return new ControllerProcess(child);
  }

  snapshot(): Promise<WriteSnapshot> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, resolve);
      const req: ChildRequest = { type: 'snapshot', id };
      this.child.send(req, (err) => err && reject(err));
    });
  }

  /** Starts the child's CPU profiler; `stopProfile` answers with what it recorded since. */
  async startProfile(): Promise<void> {
    await this.profileRequest('profile-start');
  }

  stopProfile(): Promise<unknown> {
    return this.profileRequest('profile-stop');
  }

  private profileRequest(type: 'profile-start' | 'profile-stop'): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pendingProfiles.set(id, resolve);
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
