// JSON.parse, except that a number whose text JavaScript cannot hold exactly (an int64 beyond
// 2^53, say a pod template's runAsUser) stays that text (JSON.rawJSON, Node 21+), which
// JSON.stringify writes back unchanged: a webhook that returns whole objects (conversion) must
// not change a digit of what it was sent.

interface ParseContext {
  source?: string;
}

const rawJSON = (JSON as unknown as { rawJSON: (text: string) => unknown }).rawJSON;

export function parseJsonLossless(text: string): unknown {
  const keepText = (_key: string, value: unknown, context?: ParseContext): unknown =>
    typeof value === 'number' && context?.source !== undefined && String(value) !== context.source ? rawJSON(context.source) : value;
  return JSON.parse(text, keepText);
}
