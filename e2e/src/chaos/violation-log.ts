// What a sampler saw go wrong over a whole run: every violation counted by kind (with the first and
// last time it was seen, so a summary says how long a guarantee stayed broken), and the details of
// the first few of each kind (enough to explain, bounded in memory over a long run).

export interface SampledViolation {
  invariant: string;
  detail: string;
  atMs: number;
}

/** Every violation of one kind: how many samples showed it, and when first and last. */
export interface ViolationCount {
  count: number;
  firstAtMs: number;
  lastAtMs: number;
}

export class ViolationLog {
  /** The first `detailsPerKind` violations of each kind, with their details. */
  readonly details: SampledViolation[] = [];
  readonly counts = new Map<string, ViolationCount>();
  private readonly detailsPerKind: number;

  constructor(detailsPerKind = 5) {
    this.detailsPerKind = detailsPerKind;
  }

  record(v: SampledViolation): void {
    const counted = this.counts.get(v.invariant);
    if (counted) {
      counted.count++;
      counted.lastAtMs = v.atMs;
    } else this.counts.set(v.invariant, { count: 1, firstAtMs: v.atMs, lastAtMs: v.atMs });
    if (this.details.filter((x) => x.invariant === v.invariant).length < this.detailsPerKind) this.details.push(v);
  }

  get total(): number {
    return [...this.counts.values()].reduce((n, c) => n + c.count, 0);
  }

  summary(): string {
    if (this.total === 0) return '0 violations';
    const counts = [...this.counts].map(([kind, c]) => `${kind} ${c.count} (+${c.firstAtMs}ms to +${c.lastAtMs}ms)`).join(', ');
    return `${this.total} violations (${counts}); the first of each:\n${this.details.map((v) => `  +${v.atMs}ms ${v.invariant}: ${v.detail}`).join('\n')}`;
  }
}
