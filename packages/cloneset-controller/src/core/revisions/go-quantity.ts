// resource.Quantity as Go's apimachinery writes it back after reading it (its MarshalJSON), so a
// revision holds the quantity text OpenKruise would store: "0.5" -> "500m", "2000m" -> "2",
// "0.5Gi" -> "512Mi", while a string already in canonical form ("1e3", "129e6", "1Mi") is kept
// verbatim, as Go keeps it. Quirks are Go's, reproduced on purpose (e.g. "1000E" -> "1").

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const BINARY_EXPONENTS: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_EXPONENTS: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SUFFIXES = new Map(Object.entries(DECIMAL_EXPONENTS).map(([s, e]) => [e, s]));
const BINARY_SUFFIXES = new Map(Object.entries(BINARY_EXPONENTS).map(([s, e]) => [e, s]));
const MAX_INT64 = (1n << 63n) - 1n;
/** Digits a mantissa may have for Go's int64 fast path. */
const MAX_INT64_FACTORS = 18;
const NANO = -9;

/** A parsed quantity: sign * mantissa * 10^exponent, and the text Go keeps when it is canonical. */
interface Parsed {
  mantissa: bigint;
  exponent: number;
  format: Format;
  cached?: string;
}

interface Split {
  negative: boolean;
  num: string;
  denom: string;
  suffix: string;
}

/** The number, fraction and suffix parts, with the leading zeros of the number dropped (Go's parseQuantityString). */
function split(text: string): Split | undefined {
  const m = /^([+-]?)0*(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[+-]?\d*)$/.exec(text);
  if (!m || text === '') return undefined;
  const [, sign = '', num = '', denom = '', suffix = ''] = m;
  return { negative: sign === '-', num: num === '' ? '0' : num, denom, suffix };
}

function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: Format } | undefined {
  const bin = BINARY_EXPONENTS[suffix];
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  const dec = DECIMAL_EXPONENTS[suffix];
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const exp = /^[eE]([+-]?\d+)$/.exec(suffix);
  if (exp) return { base: 10, exponent: Number(exp[1]), format: 'DecimalExponent' };
  return undefined;
}

/** Go's int64 fast path: the parsed text is reused when it is already canonical. */
function fastPath(text: string, s: Split, base: 2 | 10, exponent: number, format: Format): Parsed | undefined {
  let precision: number;
  let scale: number;
  let multiplier = 1n;
  if (base === 10) {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (s.num.length + s.denom.length);
  } else {
    scale = 0;
    if (s.denom.length > 0) return undefined;
    multiplier = 1n << BigInt(exponent);
    precision = 15 - s.num.length - Math.trunc((exponent * 3) / 10) - 1;
  }
  if (precision < 0) return undefined;
  scale -= s.denom.length;
  if (scale < NANO) return undefined;
  const shifted = s.num + s.denom;
  const value = BigInt(shifted);
  const product = value * multiplier;
  if (product > MAX_INT64) return undefined;
  const mantissa = s.negative ? -product : product;
  const canonical =
    format === 'BinarySI'
      ? exponent % 10 === 0 && (value & 7n) !== 0n
      : scale % 3 === 0 && !shifted.endsWith('000') && !shifted.startsWith('0');
  return { mantissa, exponent: scale, format, ...(canonical ? { cached: text } : {}) };
}

/** Go's exact path: rounds anything finer than a nano up (away from zero) and caps BinarySI at int64. */
function slowPath(s: Split, base: 2 | 10, exponent: number, format: Format): Parsed {
  let magnitude = BigInt(s.num + s.denom);
  let scale = -s.denom.length;
  if (base === 10) scale += exponent;
  else magnitude *= 1n << BigInt(exponent);
  if (magnitude !== 0n && scale < NANO) {
    const divisor = 10n ** BigInt(NANO - scale);
    magnitude = (magnitude + divisor - 1n) / divisor;
    scale = NANO;
  }
  let fmt = format;
  if (fmt === 'BinarySI') {
    if (compare(magnitude, scale, MAX_INT64, 0) > 0) [magnitude, scale] = [MAX_INT64, 0];
    if (magnitude !== 0n && compare(magnitude, scale, 1n, 0) < 0) fmt = 'DecimalSI';
  }
  return { mantissa: s.negative ? -magnitude : magnitude, exponent: scale, format: fmt };
}

/** Compares a*10^ea with b*10^eb. */
function compare(a: bigint, ea: number, b: bigint, eb: number): number {
  const e = Math.min(ea, eb);
  const x = a * 10n ** BigInt(ea - e);
  const y = b * 10n ** BigInt(eb - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

function parse(text: string): Parsed | undefined {
  const s = split(text.trim());
  if (!s) return undefined;
  const suffix = interpretSuffix(s.suffix);
  if (!suffix) return undefined;
  return fastPath(text.trim(), s, suffix.base, suffix.exponent, suffix.format) ?? slowPath(s, suffix.base, suffix.exponent, suffix.format);
}

function removeFactors(value: bigint, factor: bigint): [bigint, number] {
  let v = value < 0n ? -value : value;
  let times = 0;
  while (v >= factor && v % factor === 0n) {
    v /= factor;
    times++;
  }
  return [value < 0n ? -v : v, times];
}

function decimalText(mantissa: bigint, exponent: number, format: Format): string {
  const [stripped, times] = removeFactors(mantissa, 10n);
  let amount = stripped;
  let exp = exponent + times;
  // Lower the exponent to a multiple of 3 (Go's % keeps the sign).
  while (exp % 3 !== 0) {
    amount *= 10n;
    exp--;
  }
  // An exponent with no SI suffix (beyond E) loses its suffix in Go; kept as Go writes it.
  const suffix = format === 'DecimalExponent' ? (exp === 0 ? '' : `e${exp}`) : (DECIMAL_SUFFIXES.get(exp) ?? '');
  return `${amount}${suffix}`;
}

function canonicalText(q: Parsed): string {
  if (q.mantissa === 0n) return '0';
  if (q.format === 'BinarySI') {
    const small = compare(q.mantissa, q.exponent, -1024n, 0) > 0 && compare(q.mantissa, q.exponent, 1024n, 0) < 0;
    const integer = q.exponent >= 0 || q.mantissa % 10n ** BigInt(-q.exponent) === 0n;
    if (!small && integer) {
      const whole = q.exponent >= 0 ? q.mantissa * 10n ** BigInt(q.exponent) : q.mantissa / 10n ** BigInt(-q.exponent);
      const [amount, times] = removeFactors(whole, 1024n);
      return `${amount}${BINARY_SUFFIXES.get(times * 10) ?? ''}`;
    }
    return decimalText(q.mantissa, q.exponent, 'DecimalSI');
  }
  return decimalText(q.mantissa, q.exponent, q.format);
}

/** The text Go writes for this quantity, or undefined when Go would refuse to parse it. */
export function goQuantity(value: string | number): string | undefined {
  const q = parse(typeof value === 'number' ? String(value) : value);
  if (!q) return undefined;
  return q.cached ?? canonicalText(q);
}
