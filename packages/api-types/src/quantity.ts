// Kubernetes resource quantities ("500m", "1Gi", "1e3"): the syntax check of
// resource.ParseQuantity and a numeric value good enough to compare requests with limits.

/** The pattern the apiserver quotes when it refuses a quantity. */
export const QUANTITY_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

const NUMBER = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(.*)$/;
const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** The quantity's value, or undefined when the apiserver would not parse it. */
export function parseQuantity(text: string): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = NUMBER.exec(text);
  if (!m) return undefined;
  const [, sign, digits, suffix] = m as unknown as [string, string, string, string];
  let scale: number | undefined = BINARY[suffix] ?? DECIMAL[suffix];
  if (scale === undefined) {
    const exp = /^[eE]([+-]?[0-9]+)$/.exec(suffix);
    if (!exp) return undefined;
    scale = 10 ** Number(exp[1]);
  }
  return (sign === '-' ? -1 : 1) * Number(digits) * scale;
}
