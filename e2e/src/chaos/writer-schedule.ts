// The edits a concurrent user makes while a CloneSet rolls out (concurrent writers):
// a seeded schedule of pod label/annotation writes, pod deletes and CloneSet edits (replicas,
// partition, image back and forth, paused). Pure: the same seed gives the same edits, and the
// spec the CloneSet must end at is a fold of the schedule.
import { seededRandom } from './seeded.ts';

export type WriterEdit =
  | { kind: 'podLabel' | 'podAnnotation' | 'deletePod'; /** which pod, as a fraction of the sorted pod list when the edit runs */ pick: number }
  /** A label of the user's on every pod there is. */
  | { kind: 'markAll' }
  | { kind: 'replicas'; value: number }
  | { kind: 'partition'; value: number }
  | { kind: 'image'; value: string }
  | { kind: 'paused'; value: boolean };

export interface ScheduledEdit {
  atMs: number;
  edit: WriterEdit;
}

export interface WriterSpec {
  replicas: number;
  partition: number;
  image: string;
  paused: boolean;
}

export interface ScheduleOptions {
  edits: number;
  spanMs: number;
  minReplicas: number;
  maxReplicas: number;
  /** The image goes back and forth between these. */
  images: readonly [string, string];
  /**
   * The image of the closing change, one no earlier edit sets: no pod can be at it before the
   * close (with `images` alone, a pause or a partition could have kept pods at the closing image).
   */
  closingImage: string;
}

type RandomKind = Exclude<WriterEdit['kind'], 'markAll'>;

/** Pod writes most often (they race the controller's pod writes), spec edits and deletes less. */
const KINDS: readonly [RandomKind, number][] = [
  ['podLabel', 4],
  ['podAnnotation', 4],
  ['deletePod', 1],
  ['replicas', 2],
  ['partition', 2],
  ['image', 2],
  ['paused', 1],
];

function pickKind(x: number): RandomKind {
  const total = KINDS.reduce((n, [, w]) => n + w, 0);
  let at = x * total;
  for (const [kind, w] of KINDS) {
    if (at < w) return kind;
    at -= w;
  }
  return KINDS[KINDS.length - 1]![0];
}

/**
 * Edits at increasing times within spanMs. Ends with every pod marked, then the closing image (no
 * pod is at it yet) and a partition below replicas, so at least one marked pod is updated by the
 * controller whatever the seed and the timing; and unpaused (a paused CloneSet never settles), so
 * the last spec is one the controller must reach.
 */
export function writerSchedule(seed: number, o: ScheduleOptions): ScheduledEdit[] {
  if (o.edits < 1 || o.minReplicas < 1 || o.maxReplicas < o.minReplicas || o.images.includes(o.closingImage)) throw new Error(`bad writer schedule options: ${JSON.stringify(o)}`);
  const next = seededRandom(seed);
  const times = Array.from({ length: o.edits }, () => Math.round(next() * o.spanMs)).sort((a, b) => a - b);
  let replicas = o.minReplicas;
  let imageIndex = 0;
  const out: ScheduledEdit[] = times.map((atMs) => {
    const kind = pickKind(next());
    switch (kind) {
      case 'replicas':
        replicas = o.minReplicas + Math.floor(next() * (o.maxReplicas - o.minReplicas + 1));
        return { atMs, edit: { kind, value: replicas } };
      case 'partition':
        return { atMs, edit: { kind, value: Math.floor(next() * (replicas + 1)) } };
      case 'image':
        imageIndex = 1 - imageIndex;
        return { atMs, edit: { kind, value: o.images[imageIndex]! } };
      case 'paused':
        return { atMs, edit: { kind, value: next() < 0.5 } };
      default:
        return { atMs, edit: { kind, pick: next() } };
    }
  });
  out.push(
    { atMs: o.spanMs, edit: { kind: 'markAll' } },
    { atMs: o.spanMs, edit: { kind: 'image', value: o.closingImage } },
    { atMs: o.spanMs, edit: { kind: 'partition', value: Math.floor(next() * replicas) } },
    { atMs: o.spanMs, edit: { kind: 'paused', value: false } },
  );
  return out;
}

/** The spec after every edit, starting from `initial`. */
export function finalSpec(initial: WriterSpec, schedule: readonly ScheduledEdit[]): WriterSpec {
  return schedule.reduce<WriterSpec>((spec, { edit }) => {
    switch (edit.kind) {
      case 'replicas':
      case 'partition':
      case 'image':
      case 'paused':
        return { ...spec, [edit.kind]: edit.value };
      default:
        return spec;
    }
  }, initial);
}

/** The pod an edit with `pick` targets among `names` (sorted, so a replay picks the same one given the same pods). */
export function pickPod(names: readonly string[], pick: number): string | undefined {
  const sorted = [...names].sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(pick * sorted.length))];
}
