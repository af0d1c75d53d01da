// Template normalisation for semantic equality (zero-disruption takeover: README, Compatibility
// with OpenKruise). A revision written by another implementation went through Go's JSON
// encoder (omitempty, canonical quantities, `$patch`, `creationTimestamp: null`);
// the live template is what the apiserver stored. Both are reduced to one form.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

// Go `omitempty` scalars that are false/0 by default; dropping them elsewhere would
// equate e.g. `automountServiceAccountToken: false` with "unset", a real change.
const FALSE_IS_UNSET = new Set(['stdin', 'stdinOnce', 'tty', 'hostNetwork', 'hostPID', 'hostIPC', 'readOnly']);
const ZERO_IS_UNSET = new Set(['hostPort']);
// String maps where "" is a meaningful value.
const STRING_MAPS = new Set(['labels', 'annotations', 'nodeSelector', 'matchLabels']);
// Maps of resource quantities ("1000m" and "1" are the same value).
const QUANTITY_MAPS = new Set(['limits', 'requests', 'overhead']);
// Single quantity fields of a pod template (resourceFieldRef divisor, emptyDir sizeLimit).
const QUANTITY_FIELDS = new Set(['divisor', 'sizeLimit']);

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL_EXP: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

/** Exact rational value of a Kubernetes quantity as "num/den", or undefined if unparsable. */
export function canonicalQuantity(q: string | number): string | undefined {
  const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/.exec(String(q).trim());
  if (!m) return undefined;
  const [, sign = '', digits = '', eExp, suffix = ''] = m;
  const [intPart = '', frac = ''] = digits.split('.');
  let num = BigInt((intPart || '0') + frac) * (sign === '-' ? -1n : 1n);
  let den = 10n ** BigInt(frac.length);
  let exp = eExp ? Number(eExp.slice(1)) : (DECIMAL_EXP[suffix] ?? 0);
  const bin = BINARY[suffix];
  if (bin !== undefined) {
    num *= bin;
    exp = 0;
  }
  if (exp >= 0) num *= 10n ** BigInt(exp);
  else den *= 10n ** BigInt(-exp);
  const g = gcd(num, den) || 1n;
  return `${num / g}/${den / g}`;
}

function normalise(value: unknown, key: string, parentKey: string): Json | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    const items = value.map((v) => normalise(v, '', key)).filter((v): v is Json => v !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value === 'object') {
    const out: { [k: string]: Json } = {};
    for (const k of Object.keys(value).sort()) {
      if (k === '$patch') continue;
      if (k === 'creationTimestamp' && key === 'metadata') continue;
      const v = normalise((value as Record<string, unknown>)[k], k, key);
      if (v !== undefined) out[k] = v;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if ((QUANTITY_MAPS.has(parentKey) || QUANTITY_FIELDS.has(key)) && (typeof value === 'string' || typeof value === 'number')) {
    return canonicalQuantity(value) ?? String(value);
  }
  if (typeof value === 'string') {
    return value === '' && !STRING_MAPS.has(parentKey) ? undefined : value;
  }
  if (typeof value === 'boolean') return value === false && FALSE_IS_UNSET.has(key) ? undefined : value;
  if (typeof value === 'number') return value === 0 && ZERO_IS_UNSET.has(key) ? undefined : value;
  return undefined;
}

/** The normalised form of a pod template (or any API object fragment). */
export function normaliseTemplate(template: unknown): Json {
  return normalise(template, '', '') ?? {};
}

/** JSON with sorted keys; normalised values already have sorted keys. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normaliseTemplate(value));
}

export function semanticallyEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
