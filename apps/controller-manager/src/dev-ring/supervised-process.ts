// A child process started again a second after it exits on its own, as its Deployment would (a
// manager exits 1 when it loses its Lease, as a leader does; kill() is such an exit); stop() ends it
// for good.
// Its output lines carry `[name]`, so interleaved output says who wrote what.
import { spawn, type ChildProcess } from 'node:child_process';

const RESTART_DELAY_MS = 1_000;

export interface SupervisedOptions {
  name: string;
  command: string;
  args: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Where each output line goes (default: stderr, prefixed with the name). */
  line?: (line: string) => void;
  /** Started again after an exit it did not stop() (default true). */
  restart?: boolean;
  /** Called when it exited on its own, before the restart. */
  onExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

export class SupervisedProcess {
  private child: ChildProcess | undefined;
  private ended = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly o: SupervisedOptions;

  constructor(o: SupervisedOptions) {
    this.o = o;
  }

  get name(): string {
    return this.o.name;
  }

  start(): this {
    this.ended = false;
    const child = spawn(this.o.command, [...this.o.args], { cwd: this.o.cwd, env: this.o.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const line = this.o.line ?? ((l: string) => void process.stderr.write(`[${this.o.name}] ${l}\n`));
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const l of lines) line(l);
      });
    }
    child.once('exit', (code, signal) => {
      if (this.ended || this.child !== child) return;
      this.o.onExit?.(code, signal);
      if (this.o.restart === false) return;
      this.restartTimer = setTimeout(() => !this.ended && this.start(), RESTART_DELAY_MS);
    });
    return this;
  }

  /** The running child's pid. */
  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with its exit code once the current child has exited (at once when none runs). */
  exited(): Promise<number> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child?.exitCode ?? 1);
    return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
  }

  /**
   * SIGKILL, no hooks run, and (unless `restart` is false) started again a second later as
   * its Deployment would.
   */
  async kill(restart = true): Promise<void> {
    if (!restart) this.end();
    const done = this.exited();
    this.child?.kill('SIGKILL');
    await done;
  }

  /** SIGTERM (the manager releases its Lease), and no restart. */
  async stop(): Promise<void> {
    this.end();
    const done = this.exited();
    this.child?.kill('SIGTERM');
    await done;
  }

  private end(): void {
    this.ended = true;
    clearTimeout(this.restartTimer);
  }
}
