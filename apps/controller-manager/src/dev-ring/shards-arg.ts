// `npm start -- --shards=N`'s own argument, split from the managers' flags.
import { ConfigError } from '../config/load.ts';

/** `--shards=N` or `--shards N` (1 to 9) and the rest of the arguments. */
export function splitShardsArg(args: readonly string[]): { shards: number; rest: string[] } | undefined {
  const i = args.findIndex((a) => a === '--shards' || a.startsWith('--shards='));
  if (i < 0) return undefined;
  const raw = args[i]!.includes('=') ? args[i]!.slice('--shards='.length) : args[i + 1];
  const shards = Number(raw);
  if (!/^[1-9]$/.test(raw ?? '')) throw new ConfigError(`--shards must be a whole number from 1 to 9, not "${raw ?? ''}"`);
  const rest = args.filter((_, j) => j !== i && !(j === i + 1 && !args[i]!.includes('=')));
  return { shards, rest };
}

