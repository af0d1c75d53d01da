// A cap on requests being served at once: past it a request is answered 429 before its body is
// read, so a flood costs a few bytes each instead of a buffered body and a parse.
export class InFlightLimit {
  private count = 0;
  readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  /** A release function (idempotent) when a slot was free, else undefined. */
  tryAcquire(): (() => void) | undefined {
    if (this.count >= this.max) return undefined;
    this.count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.count--;
    };
  }

  inUse(): number {
    return this.count;
  }
}
