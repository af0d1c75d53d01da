// The bench's command line: `npm run bench -- [--quick] [--only=a,b] [--out=path] [--merge]
// [--large-replicas=N] [--manager-size=CxP] [--help]`. Parsed before anything starts, so a wrong
// option fails at once instead of after a cluster start.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export interface BenchOptions {
  quick: boolean;
  /** Scenario names, in the order given (every default one when --only is absent). */
  scenarios: string[];
  out: string;
  /** Keep what the existing report and results.json hold of the scenarios this run does not measure. */
  merge: boolean;
  /** One CloneSet's replicas in scale-large and scale-large-shipped, instead of the size's. */
  largeReplicas?: number;
  /** CloneSets and pods per CloneSet in manager-large, instead of the size's. */
  managerSize?: { cloneSets: number; podsPerCloneSet: number };
  help: boolean;
}

export const DEFAULT_OUT = fileURLToPath(new URL('../results.md', import.meta.url));

export const USAGE = `usage: npm run bench -- [--quick] [--only=NAME[,NAME...]] [--out=PATH] [--merge]
                       [--large-replicas=N] [--manager-size=CLONESETSxPODS]
  --quick            smaller sizes (a smoke run)
  --only             run only these scenarios (scale-large, scale-large-shipped, manager-large and
                     sharding run only when named here; sharding needs the sharder, see
                     packages/local-cluster/scripts/build-sharder.sh)
  --out              where to write the report (default bench/results.md; results.json beside it)
  --merge            keep the sections and results.json groups of scenarios this run does not measure
  --large-replicas   the replicas of the CloneSet of scale-large and scale-large-shipped (default 10000, --quick 300)
  --manager-size     manager-large's CloneSets and pods per CloneSet, e.g. 50x1000 (the default; --quick 4x100)`;

/** A whole number within [min, max], or an error naming the option. */
function count(option: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new Error(`--${option} must be a whole number from ${min} to ${max}, not "${raw}"`);
  return n;
}

/**
 * Throws with a message naming the bad option or scenario. `optIn` scenarios (hours long) are
 * known but run only when --only names them.
 */
export function parseBenchArgs(args: readonly string[], knownScenarios: readonly string[], optIn: readonly string[] = []): BenchOptions {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      out: { type: 'string', default: DEFAULT_OUT },
      merge: { type: 'boolean', default: false },
      'large-replicas': { type: 'string' },
      'manager-size': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const scenarios = values.only ? values.only.split(',').map((s) => s.trim()).filter(Boolean) : knownScenarios.filter((s) => !optIn.includes(s));
  for (const n of scenarios) {
    if (!knownScenarios.includes(n)) throw new Error(`unknown scenario "${n}" in --only (known: ${knownScenarios.join(', ')})`);
  }
  const options: BenchOptions = { quick: values.quick, scenarios, out: values.out, merge: values.merge, help: values.help };
  const large = values['large-replicas'];
  if (large !== undefined) options.largeReplicas = count('large-replicas', large, 1, 100_000);
  const manager = values['manager-size'];
  if (manager !== undefined) {
    const m = /^(\d+)x(\d+)$/.exec(manager);
    if (!m) throw new Error(`--manager-size must be CLONESETSxPODS, e.g. 50x1000, not "${manager}"`);
    options.managerSize = { cloneSets: count('manager-size', m[1]!, 1, 1_000), podsPerCloneSet: count('manager-size', m[2]!, 1, 100_000) };
  }
  return options;
}
