// Folding of similar Events, as client-go's EventAggregator does: events about the same object
// with the same type, reason and action but different notes (one "succeed to create pod X" per
// pod) get their own Event only up to a threshold of distinct notes within a window; from then
// on they count into one Event whose note says it is combined. A 300-pod scale-out therefore
// writes a handful of Events instead of 300, and `kubectl get events` still shows the count.
// Pure: the recorder keeps the state per group and executes the decision.

/** client-go's defaults: maxEvents 10, maxIntervalInSeconds 600. */
export const FOLD_AT_DISTINCT_NOTES = 10;
export const FOLD_WINDOW_MS = 10 * 60_000;
export const COMBINED_NOTE_PREFIX = '(combined from similar events): ';

/** What the recorder remembers about one group of similar events. */
export interface SimilarEvents {
  /** Notes that got their own Event in the current window (fewer than the threshold). */
  readonly notes: ReadonlySet<string>;
  readonly lastSeen: number;
}

export type FoldDecision =
  /** The note keeps its own Event (new, or a repeat of one that already has it). */
  | { readonly fold: false; readonly similar: SimilarEvents }
  /** The event joins the group's combined Event, with this note if it creates it. */
  | { readonly fold: true; readonly note: string; readonly similar: SimilarEvents };

export interface FoldLimits {
  distinctNotes: number;
  windowMs: number;
}

/**
 * Decides whether an event with `note` gets its own Event or joins the combined one, given what
 * was seen of its group before (undefined: nothing yet). As in client-go, the group starts over
 * once nothing similar was seen for a whole window, and the event whose note is the threshold-th
 * distinct one is the first to be folded.
 */
export function foldSimilar(
  previous: SimilarEvents | undefined,
  note: string,
  now: number,
  limits: FoldLimits = { distinctNotes: FOLD_AT_DISTINCT_NOTES, windowMs: FOLD_WINDOW_MS },
): FoldDecision {
  const fresh = !previous || now - previous.lastSeen > limits.windowMs;
  const notes = fresh ? new Set<string>() : previous.notes;
  if (notes.has(note)) return { fold: false, similar: { notes, lastSeen: now } };
  if (notes.size + 1 < limits.distinctNotes) return { fold: false, similar: { notes: new Set([...notes, note]), lastSeen: now } };
  // The set stops growing here (client-go pops one at random to stay below the threshold; keeping
  // the earlier notes instead makes a repeat of one of them deterministic: it joins its own Event).
  return { fold: true, note: `${COMBINED_NOTE_PREFIX}${note}`, similar: { notes, lastSeen: now } };
}
