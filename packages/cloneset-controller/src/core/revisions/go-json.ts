// The text Go's encoding/json writes (OpenKruise stores revision data through it), so revision
// bytes match OpenKruise's exactly: keys sorted by UTF-8 byte order, compact, HTML-safe string
// escapes, numbers as float64 in Go's shortest round-trip form.

/** A decoded JSON value; integers too large for a float64 may arrive as bigint (exact parsers). */
export type GoJson = null | boolean | number | bigint | string | GoJson[] | { [key: string]: GoJson };

const HEX = '0123456789abcdef';
const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

function escapeChar(ch: string): string {
  const short = SHORT_ESCAPES[ch];
  if (short !== undefined) return short;
  const code = ch.charCodeAt(0);
  return `\\u${HEX[code >> 12]}${HEX[(code >> 8) & 15]}${HEX[(code >> 4) & 15]}${HEX[code & 15]}`;
}

// Go escapes control characters, `"` and `\`, and (HTML-safe) `<`, `>`, `&`, U+2028, U+2029.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped
const NEEDS_ESCAPE = /["\\\u0000-\u001f<>&\u2028\u2029]/g;

/** A JSON string literal as Go writes it. Lone surrogates become U+FFFD, as Go's UTF-8 does. */
export function goQuote(s: string): string {
  return `"${s.toWellFormed().replace(NEEDS_ESCAPE, escapeChar)}"`;
}

/**
 * A number as Go's float64 encoder writes it. JavaScript's Number#toString already uses the
 * shortest round-trip digits and switches to exponent form at the same bounds (< 1e-6, >= 1e21);
 * only -0 differs. A bigint is first rounded to the nearest float64, as Go's decoder into
 * `interface{}` does.
 */
export function goNumber(n: number | bigint): string {
  const f = typeof n === 'bigint' ? Number(n) : n;
  if (!Number.isFinite(f)) throw new Error(`JSON cannot encode the number ${String(f)}`);
  return Object.is(f, -0) ? '-0' : String(f);
}

const utf8 = new TextEncoder();

/** Go sorts map keys by their bytes; UTF-16 order differs above the BMP. */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(utf8.encode(a.toWellFormed()), utf8.encode(b.toWellFormed()));
}

/** Compact JSON of a generic value as Go's `json.Marshal` of a `map[string]interface{}` tree writes it. */
export function goMarshal(value: GoJson): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
    case 'bigint':
      return goNumber(value);
    case 'string':
      return goQuote(value);
  }
  if (Array.isArray(value)) return `[${value.map(goMarshal).join(',')}]`;
  const keys = Object.keys(value).sort(compareUtf8);
  return `{${keys.map((k) => `${goQuote(k)}:${goMarshal(value[k] as GoJson)}`).join(',')}}`;
}
