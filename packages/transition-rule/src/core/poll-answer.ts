// What a poll answer may add to a task: only the task's own pods. A server answering each poll
// with a megabyte of fresh names must not grow the controller's memory (or make each round sort
// millions of names), so names of other pods are dropped, and an answer listing more names than
// the task has pods is refused outright: no honest server finishes more pods than it was sent.

export type PollMerge = { ok: true; approved: ReadonlySet<string>; changed: boolean } | { ok: false; problem: string };

/** `approved` with the task's pods among `finishedNames` added; the same set when none is new. */
export function mergeFinishedNames(pods: ReadonlySet<string>, approved: ReadonlySet<string>, finishedNames: readonly string[]): PollMerge {
  if (finishedNames.length > pods.size) {
    return { ok: false, problem: `the answer lists ${finishedNames.length} finished names for a task of ${pods.size} pod(s)` };
  }
  let next: Set<string> | undefined;
  for (const name of finishedNames) {
    if (!pods.has(name) || approved.has(name) || next?.has(name)) continue;
    next ??= new Set(approved);
    next.add(name);
  }
  return next ? { ok: true, approved: next, changed: true } : { ok: true, approved, changed: false };
}
