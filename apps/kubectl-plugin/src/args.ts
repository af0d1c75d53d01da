// The command line, parsed into one typed command (kubectl's verbs, flags and defaults).
import { parseArgs } from 'node:util';
import { parseFeatureGates, type FeatureGateSettings } from './core/feature-gates.ts';
import { parseTarget } from './core/target.ts';
import { UsageError } from './core/usage-error.ts';

export type OutputFormat = 'json' | 'yaml';

export interface Connection {
  kubeconfig: string | undefined;
  context: string | undefined;
  namespace: string | undefined;
}

export type Command =
  | { verb: 'help'; text: string }
  | ({ connection: Connection; name: string; output: OutputFormat | undefined } & (
      | { verb: 'status'; watch: boolean; timeoutMs: number }
      | { verb: 'pause' | 'resume' }
      | { verb: 'restart'; watch: boolean; timeoutMs: number }
      | { verb: 'undo'; toRevision: number }
      | { verb: 'history'; revision: number }
      | { verb: 'set-image'; images: string[] }
      | { verb: 'partition'; value: string }
      | { verb: 'pods'; watch: boolean; gates: FeatureGateSettings }
      | { verb: 'plan'; gates: FeatureGateSettings }
    ));

export const USAGE = `kubectl cloneset: kubectl rollout and friends for OpenKruise CloneSets (apps.kruise.io/v1alpha1).

Usage:
  kubectl cloneset rollout status clone/NAME [--watch=true] [--timeout=0s]
  kubectl cloneset rollout pause|resume clone/NAME
  kubectl cloneset rollout restart clone/NAME [--watch=true] [--timeout=0s]
  kubectl cloneset rollout undo clone/NAME [--to-revision=N]
  kubectl cloneset rollout history clone/NAME [--revision=N]
  kubectl cloneset set image clone/NAME CONTAINER=IMAGE [CONTAINER=IMAGE...]   (CONTAINER * for all)
  kubectl cloneset partition clone/NAME N|P%
  kubectl cloneset pods clone/NAME [-w] [--feature-gates=A=true,B=false]
  kubectl cloneset plan clone/NAME [--feature-gates=A=true,B=false]

Flags:
  -n, --namespace NS     the CloneSet's namespace (default: the context's, else "default")
      --kubeconfig FILE  kubeconfig to use (default: $KUBECONFIG, ~/.kube/config)
      --context NAME     kubeconfig context to use
  -o, --output FORMAT    json|yaml: print the object (pods, history, plan, and every edit)
  -w, --watch            status: follow until done; restart: then follow as status (default
                         true, false with -o); pods: print the table again on changes
      --timeout          status, restart: give up after this long (e.g. 5m; 0 waits forever)
      --feature-gates    plan, pods: the controller-manager's --feature-gates, to plan as it does
  -h, --help

Exit status: 0 on success, 1 on any error (including a rollout status timeout or a rollout
that can no longer progress).
`;

const OPTIONS = {
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  namespace: { type: 'string', short: 'n' },
  output: { type: 'string', short: 'o' },
  watch: { type: 'boolean', short: 'w' },
  timeout: { type: 'string' },
  'to-revision': { type: 'string' },
  revision: { type: 'string' },
  'feature-gates': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const KNOWN = new Set(['rollout status', 'rollout pause', 'rollout resume', 'rollout restart', 'rollout undo', 'rollout history', 'set image', 'partition', 'pods', 'plan']);

/** Go's time.ParseDuration subset kubectl users type: `0`, `90s`, `5m`, `1h30m`, `500ms`. */
export function parseTimeout(text: string): number {
  if (text === '0') return 0;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (text === '' || parts.map((p) => p[0]).join('') !== text) throw new UsageError(`invalid --timeout "${text}": expected a duration such as 30s, 5m or 1h30m`);
  return parts.reduce((ms, p) => ms + Number(p[1]) * (units[p[2] ?? ''] ?? 0), 0);
}

function nonNegativeInt(flag: string, text: string | undefined): number {
  if (text === undefined) return 0;
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`invalid --${flag} "${text}": expected a revision number`);
  return Number(text);
}

function outputFormat(text: string | undefined): OutputFormat | undefined {
  if (text === undefined || text === 'json' || text === 'yaml') return text;
  throw new UsageError(`unable to match a printer suitable for the output format "${text}", allowed formats are: json,yaml`);
}

/** kubectl accepts `--watch=false`; node's parser knows `--no-watch`. */
function normaliseBooleans(argv: readonly string[]): string[] {
  return argv.map((a) => (a === '--watch=false' || a === '-w=false' ? '--no-watch' : a === '--watch=true' || a === '-w=true' ? '--watch' : a));
}

export function parseCommand(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: normaliseBooleans(argv), options: OPTIONS, allowPositionals: true, allowNegative: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) return { verb: 'help', text: USAGE };
  const common = {
    connection: { kubeconfig: values.kubeconfig, context: values.context, namespace: values.namespace },
    output: outputFormat(values.output),
  };
  const [group, ...rest] = positionals;
  const sub = group === 'rollout' || group === 'set' ? rest.shift() : undefined;
  const key = sub === undefined ? (group ?? '') : `${group} ${sub}`;
  if (!KNOWN.has(key)) throw new UsageError(`unknown command "${key}"`);
  if (values['feature-gates'] !== undefined && key !== 'plan' && key !== 'pods') throw new UsageError('--feature-gates applies to plan and pods only');
  const { name, rest: extra } = parseTarget(rest);
  const noExtra = (): void => {
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  };
  switch (key) {
    case 'rollout status':
      noExtra();
      return { ...common, name, verb: 'status', watch: values.watch ?? true, timeoutMs: parseTimeout(values.timeout ?? '0') };
    case 'rollout pause':
    case 'rollout resume':
      noExtra();
      return { ...common, name, verb: sub as 'pause' | 'resume' };
    case 'rollout restart':
      noExtra();
      // -o prints the object; following would mix status lines into it.
      if (common.output !== undefined && values.watch === true) throw new UsageError('--watch follows the rollout with status lines, -o prints the object: give one of them');
      return { ...common, name, verb: 'restart', watch: values.watch ?? common.output === undefined, timeoutMs: parseTimeout(values.timeout ?? '0') };
    case 'rollout undo':
      noExtra();
      return { ...common, name, verb: 'undo', toRevision: nonNegativeInt('to-revision', values['to-revision']) };
    case 'rollout history':
      noExtra();
      return { ...common, name, verb: 'history', revision: nonNegativeInt('revision', values.revision) };
    case 'set image':
      return { ...common, name, verb: 'set-image', images: extra };
    case 'partition':
      if (extra.length !== 1) throw new UsageError('give exactly one partition: an integer N or a percentage P%');
      return { ...common, name, verb: 'partition', value: extra[0] ?? '' };
    case 'pods':
      noExtra();
      return { ...common, name, verb: 'pods', watch: values.watch ?? false, gates: parseFeatureGates(values['feature-gates']) };
    case 'plan':
      noExtra();
      return { ...common, name, verb: 'plan', gates: parseFeatureGates(values['feature-gates']) };
    default:
      throw new UsageError(`unknown command "${key}"`);
  }
}
