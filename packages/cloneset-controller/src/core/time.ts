// Timestamps arrive as Date (client-node deserialiser) or RFC3339 strings (raw
// JSON from a cache). Planners compare milliseconds; `undefined` means "zero time".

export function toMillis(t: Date | string | undefined | null): number | undefined {
  if (t === undefined || t === null) return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** RFC3339 without sub-second digits, as Kubernetes writes metav1.Time. */
export function rfc3339(nowMs: number): string {
  return new Date(Math.floor(nowMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
