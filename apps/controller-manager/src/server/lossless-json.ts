// JSON parsing for webhooks that return whole objects (conversion): they must not change a digit
// of what they were sent, yet one request must not hold the event loop. JSON.parse is native and
// fast; JSON.parse with a reviver calls back into JavaScript for every value (16 MiB held the loop
// for 18 s). So the text is parsed natively, and again with the reviver only when it holds an
// integer JavaScript cannot represent exactly (an int64 beyond 2^53, say a pod template's
// runAsUser): such a number then stays its text (JSON.rawJSON, Node 21+), which JSON.stringify
// writes back unchanged. A float is kept as parsed: Go and JavaScript both write a float64 in its
// shortest form, so the value the apiserver decodes is the one it sent.

interface ParseContext {
  source?: string;
}

const rawJSON = (JSON as unknown as { rawJSON: (text: string) => unknown }).rawJSON;

/** Every value parsed through the reviver: numbers whose text would change stay that text. */
export function parseJsonLossless(text: string): unknown {
  const keepText = (_key: string, value: unknown, context?: ParseContext): unknown =>
    typeof value === 'number' && context?.source !== undefined && String(value) !== context.source ? rawJSON(context.source) : value;
  return JSON.parse(text, keepText);
}

/** An integer beyond Number.MAX_SAFE_INTEGER (9007199254740991, 16 digits) has at least 16 digits in a row. */
const LONG_DIGIT_RUN = /\d{16}/;

function holdsUnsafeInteger(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'number') {
      if (Number.isInteger(v) && !Number.isSafeInteger(v)) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const item of Object.values(v)) pending.push(item);
    }
  }
  return false;
}

/**
 * `parsed` (the native parse of `text`) as is, or `text` parsed again losslessly when an integer
 * in it is out of JavaScript's safe range. Callers check what they can on `parsed` first.
 */
export function keepUnsafeIntegers(text: string, parsed: unknown): unknown {
  if (!LONG_DIGIT_RUN.test(text) || !holdsUnsafeInteger(parsed)) return parsed;
  return parseJsonLossless(text);
}
