// JSON fragments sent verbatim inside a request body. The apiserver keeps a RawExtension (e.g.
// ControllerRevision.data) as the bytes it received, and a revision's bytes are its identity:
// JSON.stringify would re-order integer-like keys and write `<` where Go writes `\u003c`.
import { randomUUID } from 'node:crypto';

export class RawJson {
  readonly text: string;

  /** Throws when `text` is not one JSON value, so a bad fragment never reaches the wire. */
  constructor(text: string) {
    JSON.parse(text);
    this.text = text;
  }
}

/** JSON.stringify, with every RawJson in `value` written as its text. */
export function stringifyBody(value: unknown): string {
  const fragments: string[] = [];
  // A marker no JSON.stringify output can hold except where we put it (NUL plus a random id).
  const marker = `\u0000raw-json-${randomUUID()}-`;
  const text = JSON.stringify(value, (_key, v: unknown) => (v instanceof RawJson ? `${marker}${fragments.push(v.text) - 1}` : v));
  if (fragments.length === 0) return text;
  const quotedMarker = JSON.stringify(marker).slice(0, -1);
  return text.replaceAll(new RegExp(`${quotedMarker.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}(\\d+)"`, 'g'), (_m, i: string) => fragments[Number(i)] ?? 'null');
}
