// Where commands write, and how they print objects for -o json|yaml (kubectl's indentation).
import { stringify } from 'yaml';
import type { OutputFormat } from '../args.ts';

export interface Io {
  out(text: string): void;
  err(text: string): void;
  now(): Date;
}

export function formatObject(obj: unknown, format: OutputFormat): string {
  return format === 'json' ? `${JSON.stringify(obj, null, 4)}\n` : stringify(obj);
}

/** kubectl's `<resource>.<group>/<name>` prefix of result lines. */
export const resourceRef = (name: string): string => `cloneset.apps.kruise.io/${name}`;
