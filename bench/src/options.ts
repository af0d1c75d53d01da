// The bench's command line: `npm run bench -- [--quick] [--only=a,b] [--out=path] [--help]`.
// Parsed before anything starts, so a wrong option fails at once instead of after a cluster start.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export interface BenchOptions {
  quick: boolean;
  /** Scenario names, in the order given (all known ones when --only is absent). */
  scenarios: string[];
  out: string;
  help: boolean;
}

export const DEFAULT_OUT = fileURLToPath(new URL('../results.md', import.meta.url));

export const USAGE = `usage: npm run bench -- [--quick] [--only=NAME[,NAME...]] [--out=PATH]
  --quick   smaller sizes (a smoke run)
  --only    run only these scenarios
  --out     where to write the report (default bench/results.md)`;

/** Throws with a message naming the bad option or scenario. */
export function parseBenchArgs(args: readonly string[], knownScenarios: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      out: { type: 'string', default: DEFAULT_OUT },
      help: { type: 'boolean', default: false },
    },
  });
  const scenarios = values.only ? values.only.split(',').map((s) => s.trim()).filter(Boolean) : [...knownScenarios];
  for (const n of scenarios) {
    if (!knownScenarios.includes(n)) throw new Error(`unknown scenario "${n}" in --only (known: ${knownScenarios.join(', ')})`);
  }
  return { quick: values.quick, scenarios, out: values.out, help: values.help };
}
