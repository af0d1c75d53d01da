import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMBINED_NOTE_PREFIX, foldSimilar, type FoldDecision, type SimilarEvents } from '../../src/event-folding.ts';

const limits = { distinctNotes: 3, windowMs: 1_000 };
const seen = (notes: string[], lastSeen: number): SimilarEvents => ({ notes: new Set(notes), lastSeen });
const shape = (d: FoldDecision) => ({ fold: d.fold, note: d.fold ? d.note : undefined, notes: [...d.similar.notes], lastSeen: d.similar.lastSeen });

describe('foldSimilar', () => {
  it.each([
    { case: 'first of its group', previous: undefined, note: 'a', now: 0, want: { fold: false, note: undefined, notes: ['a'], lastSeen: 0 } },
    { case: 'second distinct note', previous: seen(['a'], 0), note: 'b', now: 10, want: { fold: false, note: undefined, notes: ['a', 'b'], lastSeen: 10 } },
    { case: 'the threshold-th distinct note folds', previous: seen(['a', 'b'], 10), note: 'c', now: 20, want: { fold: true, note: `${COMBINED_NOTE_PREFIX}c`, notes: ['a', 'b'], lastSeen: 20 } },
    { case: 'past the threshold, a new note folds', previous: seen(['a', 'b'], 20), note: 'd', now: 30, want: { fold: true, note: `${COMBINED_NOTE_PREFIX}d`, notes: ['a', 'b'], lastSeen: 30 } },
    { case: 'a repeat keeps its own Event', previous: seen(['a', 'b'], 30), note: 'a', now: 40, want: { fold: false, note: undefined, notes: ['a', 'b'], lastSeen: 40 } },
    { case: 'within the window, measured from the last similar one', previous: seen(['a', 'b'], 500), note: 'e', now: 1_500, want: { fold: true, note: `${COMBINED_NOTE_PREFIX}e`, notes: ['a', 'b'], lastSeen: 1_500 } },
    { case: 'after a quiet window the group starts over', previous: seen(['a', 'b'], 500), note: 'e', now: 1_501, want: { fold: false, note: undefined, notes: ['e'], lastSeen: 1_501 } },
  ])('$case', ({ previous, note, now, want }) => {
    expect(shape(foldSimilar(previous, note, now, limits))).toEqual(want);
  });

  it('defaults to client-go: the 10th distinct note within 10 minutes is the first folded', () => {
    let similar: SimilarEvents | undefined;
    const folded: boolean[] = [];
    for (let i = 1; i <= 12; i++) {
      const d = foldSimilar(similar, `succeed to create pod p-${i}`, i * 1_000);
      folded.push(d.fold);
      similar = d.similar;
    }
    expect(folded).toEqual([...Array<boolean>(9).fill(false), true, true, true]);
  });

  it('never gives more than threshold - 1 distinct notes their own Event within a window', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 60 }), fc.integer({ min: 1, max: 5 }), (notes, distinctNotes) => {
        let similar: SimilarEvents | undefined;
        const own = new Set<string>();
        notes.forEach((note, i) => {
          const d = foldSimilar(similar, note, i, { distinctNotes, windowMs: 1_000 });
          if (!d.fold) own.add(note);
          else expect(d.note).toBe(`${COMBINED_NOTE_PREFIX}${note}`);
          similar = d.similar;
        });
        expect(own.size).toBeLessThanOrEqual(Math.max(0, distinctNotes - 1));
        // Below the threshold nothing is folded.
        if (new Set(notes).size < distinctNotes) expect(own.size).toBe(new Set(notes).size);
      }),
    );
  });
});
