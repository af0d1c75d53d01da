// The CLI: parse the command line, connect as kubectl would (--kubeconfig, --context, -n), run
// one command, return 0 or 1. Errors print as kubectl prints them.
import { ApiError, KubeClient, loadKubeConfig } from '@cloneset-suite/kube-runtime';
import { parseCommand, type Command, type Connection } from './args.ts';
import { KubeCloneSetApi, type CloneSetApi } from './cluster.ts';
import { UsageError } from './core/usage-error.ts';
import { edit } from './commands/edit.ts';
import { rolloutHistory } from './commands/history.ts';
import type { Io } from './commands/io.ts';
import { plan } from './commands/plan.ts';
import { pods } from './commands/pods.ts';
import { rolloutRestart } from './commands/restart.ts';
import { rolloutStatus } from './commands/status.ts';
import { rolloutUndo } from './commands/undo.ts';

function connect(c: Connection): CloneSetApi {
  const kubeConfig = loadKubeConfig(c.kubeconfig);
  if (c.context !== undefined) {
    if (!kubeConfig.getContextObject(c.context)) throw new UsageError(`context was not found for specified context: ${c.context}`);
    kubeConfig.setCurrentContext(c.context);
  }
  const namespace = c.namespace ?? kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace ?? 'default';
  return new KubeCloneSetApi(new KubeClient({ kubeConfig, userAgent: 'kubectl-cloneset' }), namespace);
}

async function run(command: Exclude<Command, { verb: 'help' }>, io: Io, signal: AbortSignal): Promise<number> {
  const api = connect(command.connection);
  switch (command.verb) {
    case 'status':
      return rolloutStatus(api, io, command);
    case 'undo':
      return rolloutUndo(api, io, command);
    case 'history':
      return rolloutHistory(api, io, command);
    case 'pods':
      return pods(api, io, command, signal);
    case 'plan':
      return plan(api, io, command);
    case 'restart':
      return rolloutRestart(api, io, command);
    default:
      return edit(api, io, command);
  }
}

/** kubectl's wording: `Error from server (Reason): message`, with the field causes the message leaves out. */
function describeError(err: unknown): string {
  if (err instanceof UsageError) return `error: ${err.message}`;
  if (err instanceof ApiError && err.code > 0) {
    // The client appends the request to the server's message, kubectl does not.
    const message = err.message.endsWith(` (${err.request})`) ? err.message.slice(0, -` (${err.request})`.length) : err.message;
    const causes = (err.details?.causes ?? []).map((c) => `${c.field ? `${c.field}: ` : ''}${c.message ?? ''}`).filter((c) => !message.includes(c));
    return [`Error from server (${err.reason || err.code}): ${message}`, ...causes.map((c) => `  ${c}`)].join('\n');
  }
  return `error: ${err instanceof Error ? err.message : String(err)}`;
}

export async function main(argv: readonly string[], io: Io, signal: AbortSignal): Promise<number> {
  try {
    const command = parseCommand(argv);
    if (command.verb === 'help') {
      io.out(command.text);
      return 0;
    }
    return await run(command, io, signal);
  } catch (err) {
    io.err(`${describeError(err)}\n`);
    return 1;
  }
}
