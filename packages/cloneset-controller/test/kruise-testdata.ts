// The golden revisions real OpenKruise v1.8.4 made (../shared/testdata/kruise-revisions.json
// beside the repo; its README states the rule), read with integers kept exact as bigint where a
// float64 cannot hold them, as the README asks.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '@cloneset-suite/local-cluster';
import type { CloneSet } from '@cloneset-suite/api-types';

export interface KruiseRevisionEntry {
  cloneSet: CloneSet;
  collisionCount: number;
  revisionName: string;
  hash: string;
  data: string;
  podRevisionLabels: Record<string, string>;
  note: string;
}

export const KRUISE_REVISIONS_PATH = path.join(repoRoot, '..', 'shared', 'testdata', 'kruise-revisions.json');

type SourceReviver = (key: string, value: unknown, context: { source?: string }) => unknown;

const exactIntegers: SourceReviver = (_key, value, context) =>
  typeof value === 'number' && !Number.isSafeInteger(value) && context.source !== undefined && /^-?\d+$/.test(context.source)
    ? BigInt(context.source)
    : value;

export function loadKruiseRevisions(): KruiseRevisionEntry[] {
  const text = readFileSync(KRUISE_REVISIONS_PATH, 'utf8');
  return JSON.parse(text, exactIntegers as Parameters<typeof JSON.parse>[1]) as KruiseRevisionEntry[];
}

/** Where two texts first differ, as UTF-8 bytes, with context; undefined when byte-identical. */
export function firstByteDifference(expected: string, actual: string, context = 40): string | undefined {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(actual, 'utf8');
  if (a.equals(b)) return undefined;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - context);
  const show = (buf: Buffer) => JSON.stringify(buf.subarray(from, i + context).toString('utf8'));
  return `first difference at byte ${i} (expected ${a.length} bytes, got ${b.length}):\n  expected …${show(a)}…\n  actual   …${show(b)}…`;
}
