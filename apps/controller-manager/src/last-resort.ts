// The process's last resort. An exception nobody caught or a rejection nobody handled leaves the
// manager in a state nobody reasoned about, so it must not keep running: one structured line
// through the manager's logger says what happened, then exit 1 so the supervisor (kubelet,
// systemd, whoever ran `npm start`) restarts it. Node's default would print a bare stack to stderr,
// which no log pipeline parses.
import { inspect, types } from 'node:util';
import type { Logger } from '@cloneset-suite/kube-runtime';

export type CrashEvent = 'uncaughtException' | 'unhandledRejection';

export interface CrashReport {
  event: CrashEvent;
  /** `type` is the Error's name, or the typeof of a thrown non-Error; only an Error has a stack. */
  error: { type: string; message: string; stack?: string };
}

/** Exit code after a crash: non-zero, as for a failed component (see main.ts). */
export const CRASH_EXIT_CODE = 1;

/** What the crash line says about the thrown value, which need not be an Error. */
export function crashReport(event: CrashEvent, thrown: unknown): CrashReport {
  if (types.isNativeError(thrown) || thrown instanceof Error) {
    const { name, message, stack } = thrown;
    return { event, error: { type: name, message, ...(stack ? { stack } : {}) } };
  }
  return { event, error: { type: thrown === null ? 'null' : typeof thrown, message: inspect(thrown, { depth: 2, breakLength: Infinity }) } };
}

/** Registers the handlers on `proc`; call once the manager's logger exists. */
export function installLastResort(logger: Logger, proc: NodeJS.Process = process): void {
  const crash = (event: CrashEvent) => (thrown: unknown) => {
    try {
      logger.error(crashReport(event, thrown), `${event}: the process exits to be restarted`);
    } finally {
      // Even when logging itself throws (a closed stdout), never keep running.
      proc.exit(CRASH_EXIT_CODE);
    }
  };
  proc.on('uncaughtException', crash('uncaughtException'));
  proc.on('unhandledRejection', crash('unhandledRejection'));
}
