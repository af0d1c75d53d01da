// The golden revisions real OpenKruise v1.8.4 made (`testdata/kruise-revisions.json` of this
// package; testdata/README.md states what each field holds), for every suite that checks revision bytes and
// names against them, and the exact bytes of a ControllerRevision's data as the cluster holds it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { kubectl } from './cluster.ts';
import { packageRoot } from './paths.ts';

export interface KruiseRevisionEntry<CloneSet = KruiseCloneSet> {
  /** The CloneSet as served when the revision was current (integers beyond float64 as bigint). */
  cloneSet: CloneSet;
  collisionCount: number;
  revisionName: string;
  hash: string;
  /** The revision's data, exactly as kruise stored and hashed it. */
  data: string;
  podRevisionLabels: Record<string, string>;
  note: string;
}

export interface KruiseCloneSet {
  metadata: { name: string; namespace?: string };
  spec: { template: Record<string, unknown> } & Record<string, unknown>;
}

export const kruiseRevisionsPath = path.join(packageRoot, 'testdata', 'kruise-revisions.json');

type SourceReviver = (key: string, value: unknown, context: { source?: string }) => unknown;

const exactIntegers: SourceReviver = (_key, value, context) =>
  typeof value === 'number' && !Number.isSafeInteger(value) && context.source !== undefined && /^-?\d+$/.test(context.source)
    ? BigInt(context.source)
    : value;

/** The entries, read with integers kept exact (bigint where a float64 cannot hold them), as the README asks. */
export function loadKruiseRevisions<CloneSet = KruiseCloneSet>(): KruiseRevisionEntry<CloneSet>[] {
  return JSON.parse(readFileSync(kruiseRevisionsPath, 'utf8'), exactIntegers as Parameters<typeof JSON.parse>[1]) as KruiseRevisionEntry<CloneSet>[];
}

interface JsonWithRaw {
  rawJSON(text: string): unknown;
}

/** JSON text of a value read by loadKruiseRevisions, its bigints written exactly. */
export function toExactJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? (JSON as unknown as JsonWithRaw).rawJSON(v.toString()) : v));
}

/** Where two texts first differ, as UTF-8 bytes, with context; undefined when byte-identical. */
export function firstByteDifference(expected: string, actual: string, context = 40): string | undefined {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(actual, 'utf8');
  if (a.equals(b)) return undefined;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - context);
  const show = (buf: Buffer): string => JSON.stringify(buf.subarray(from, i + context).toString('utf8'));
  return `first difference at byte ${i} (expected ${a.length} bytes, got ${b.length}):\n  expected …${show(a)}…\n  actual   …${show(b)}…`;
}

/**
 * A ControllerRevision's `data` as the apiserver serves it, byte for byte: the text between
 * `"data":` and the `,"revision":` that ends the object (Go writes the fields in that order, and
 * a `"` inside a string is always escaped, so the markers cannot come from a value).
 */
export async function revisionDataBytes(namespace: string, name: string): Promise<string> {
  const text = (await kubectl(['get', '--raw', `/apis/apps/v1/namespaces/${namespace}/controllerrevisions/${name}`])).trimEnd();
  const start = text.indexOf('"data":{"spec":');
  const end = text.lastIndexOf(',"revision":');
  if (start < 0 || end < start) throw new Error(`ControllerRevision ${namespace}/${name}: no data in ${text.slice(0, 300)}`);
  return text.slice(start + '"data":'.length, end);
}
