// Which CloneSet a command names: kubectl's TYPE/NAME (or TYPE NAME) with the CloneSet's
// resource names, short name and kind accepted as TYPE, with or without a served version
// (`clonesets.v1beta1.apps.kruise.io`: the same object; the plugin reads it as v1alpha1).
import { UsageError } from './usage-error.ts';

const CLONESET_TYPES = new Set(
  ['cloneset', 'clonesets'].flatMap((r) => [r, `${r}.apps.kruise.io`, `${r}.v1alpha1.apps.kruise.io`, `${r}.v1beta1.apps.kruise.io`]).concat('clone'),
);

/** The CloneSet name from `clone/NAME` (args[0]) or `clone NAME` (args[0], args[1]); the rest of args is returned. */
export function parseTarget(args: readonly string[]): { name: string; rest: string[] } {
  const [first, ...rest] = args;
  if (first === undefined) throw new UsageError('required resource not specified: give clone/NAME');
  const slash = first.indexOf('/');
  const [type, name, remaining] = slash === -1 ? [first, rest[0] ?? '', rest.slice(1)] : [first.slice(0, slash), first.slice(slash + 1), rest];
  if (!CLONESET_TYPES.has(type.toLowerCase())) throw new UsageError(`only CloneSets are supported (clone/NAME), got "${first}"`);
  if (name === '') throw new UsageError(`resource name may not be empty: give clone/NAME`);
  return { name, rest: remaining };
}
