// "Nothing the user wrote is overwritten" (concurrent writers), as a check on samples:
// the test writes labels and annotations under its own prefix, each key once and never changes or
// removes it. So a mark once seen on a pod (by uid) must be on every later sample of that pod with
// the same value; one missing means some writer (the controller) replaced what the user wrote.

export const USER_MARK_PREFIX = 'chaos-user.cloneset-suite.io/';

export interface MarkedPod {
  name: string;
  uid: string;
  labels?: Readonly<Record<string, string>>;
  annotations?: Readonly<Record<string, string>>;
}

/** pod uid -> "label:key" / "annotation:key" -> value, of the marks seen so far. */
export type MarkHistory = ReadonlyMap<string, ReadonlyMap<string, string>>;

export interface MarkViolation {
  invariant: 'user-mark-lost';
  detail: string;
}

export function marksOf(pod: MarkedPod): Map<string, string> {
  const out = new Map<string, string>();
  for (const [where, map] of [['label', pod.labels], ['annotation', pod.annotations]] as const) {
    for (const [k, v] of Object.entries(map ?? {})) if (k.startsWith(USER_MARK_PREFIX)) out.set(`${where}:${k}`, v);
  }
  return out;
}

/** Checks one sample of pods against the marks earlier samples saw; pods gone since are forgotten. */
export function checkUserMarks(history: MarkHistory, pods: readonly MarkedPod[]): { history: MarkHistory; violations: MarkViolation[] } {
  const violations: MarkViolation[] = [];
  const next = new Map<string, ReadonlyMap<string, string>>();
  for (const pod of pods) {
    const now = marksOf(pod);
    for (const [key, value] of history.get(pod.uid) ?? []) {
      const seen = now.get(key);
      if (seen !== value) violations.push({ invariant: 'user-mark-lost', detail: `pod ${pod.name}: ${key}=${value} ${seen === undefined ? 'removed' : `changed to ${seen}`}` });
      // Keep reporting it: one loss is one violation per sample, not forgotten after the first.
      if (seen === undefined) now.set(key, value);
    }
    next.set(pod.uid, now);
  }
  return { history: next, violations };
}

/** Marks the test wrote (acknowledged by the apiserver) that the final pods no longer carry; pods deleted since are skipped. */
export function missingWrittenMarks(written: ReadonlyMap<string, ReadonlyMap<string, string>>, finalPods: readonly MarkedPod[]): string[] {
  const missing: string[] = [];
  for (const pod of finalPods) {
    const now = marksOf(pod);
    for (const [key, value] of written.get(pod.uid) ?? []) if (now.get(key) !== value) missing.push(`pod ${pod.name}: ${key}=${value}`);
  }
  return missing;
}
