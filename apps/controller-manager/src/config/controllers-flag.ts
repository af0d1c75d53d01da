// --controllers and --max-concurrent-reconciles: per-controller switches, checked against the
// names of the registered controllers.
import { ValueError, parseInteger, parseList, parsePairs, type RawValue } from './values.ts';

/**
 * kube-controller-manager's syntax: `*` enables every controller that is on by default, `foo`
 * enables foo, `-foo` disables foo. The default is `*`.
 */
export function parseControllerSelection(raw: RawValue, known: readonly string[]): string[] {
  const items = parseList(raw);
  if (items.length === 0) throw new ValueError('must name at least one controller, or *');
  for (const item of items) {
    const name = item.startsWith('-') ? item.slice(1) : item;
    if (name === '*' && !item.startsWith('-')) continue;
    if (!known.includes(name)) {
      throw new ValueError(`unknown controller "${name}" (known: ${known.length ? known.join(', ') : 'none yet'}; use * for all)`);
    }
  }
  return items;
}

/** Which of `known` run under the selection; `enabledByDefault` decides what `*` means. */
export function enabledControllers(selection: readonly string[], known: readonly { name: string; enabledByDefault: boolean }[]): string[] {
  const star = selection.includes('*');
  return known
    .filter(({ name, enabledByDefault }) => {
      if (selection.includes(`-${name}`)) return false;
      if (selection.includes(name)) return true;
      return star && enabledByDefault;
    })
    .map((c) => c.name);
}

export interface ConcurrencyConfig {
  /** For every controller not listed. */
  default: number;
  perController: Record<string, number>;
}

/** `4` (every controller), `cloneset=8`, or both: `2,cloneset=8`. */
export function parseMaxConcurrentReconciles(raw: RawValue, known: readonly string[]): ConcurrencyConfig {
  const result: ConcurrencyConfig = { default: 1, perController: {} };
  const bounds = { min: 1, max: 1024 };
  if (typeof raw === 'number') return { ...result, default: parseInteger(raw, bounds) };
  const items = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? parsePairs(raw) : parseList(raw).map((i) => (i.includes('=') ? parsePairs(i)[0]! : (['*', i] as [string, string])));
  for (const [name, value] of items) {
    let n: number;
    try {
      n = parseInteger(value, bounds);
    } catch (err) {
      throw new ValueError(`${name === '*' ? 'the default' : name}: ${(err as Error).message}`);
    }
    if (name === '*') result.default = n;
    else if (!known.includes(name)) throw new ValueError(`unknown controller "${name}" (known: ${known.length ? known.join(', ') : 'none yet'})`);
    else result.perController[name] = n;
  }
  return result;
}

export function concurrencyFor(config: ConcurrencyConfig, controller: string): number {
  return config.perController[controller] ?? config.default;
}
