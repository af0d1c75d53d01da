// int-or-string maths: parse an int or a percentage, scale a percentage with an explicit rounding
// mode, and resolve the CloneSet knobs as OpenKruise's CloneSet does. Percentages are kept as exact decimal
// fractions and scaled with integer arithmetic, so "99.5%" of 200 is exactly 199, never 198.99...
import type { IntOrString } from './meta.ts';

export type Rounding = 'up' | 'down';

export type ParsedIntOrPercent =
  | { kind: 'int'; value: number }
  | {
      kind: 'percent';
      /** The percentage as a number (may lose precision; use numerator/denominator for maths). */
      value: number;
      /** value = numerator / denominator, denominator a power of ten. */
      numerator: bigint;
      denominator: bigint;
      /** The original text, e.g. `"20%"`. */
      text: string;
    };

export interface ParseOptions {
  /** Accept `"12.5%"` (partition is parsed as a float); otherwise only `"<int>%"`. Default false. */
  decimalPercent?: boolean;
}

export class IntOrStringError extends Error {
  override name = 'IntOrStringError';
}

// A leading '-' parses (so validation can say "must not be negative"); '+' does not, as the CRD
// patterns refuse it.
const INT_PERCENT = /^(-?)([0-9]+)%$/;
const DECIMAL_PERCENT = /^(-?)([0-9]+)(?:\.([0-9]+))?%$/;

/** Parses an int-or-string; throws IntOrStringError when it is neither an integer nor a percentage. */
export function parseIntOrPercent(value: IntOrString, options: ParseOptions = {}): ParsedIntOrPercent {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new IntOrStringError(`invalid value for IntOrString: ${value} is not an integer`);
    return { kind: 'int', value };
  }
  const match = (options.decimalPercent === true ? DECIMAL_PERCENT : INT_PERCENT).exec(value);
  if (!match) {
    const expected = options.decimalPercent === true ? 'an integer or a percentage such as "12.5%"' : 'an integer or a percentage such as "25%"';
    throw new IntOrStringError(`invalid value for IntOrString: ${JSON.stringify(value)} is not ${expected}`);
  }
  const sign = match[1] === '-' ? -1n : 1n;
  const whole = match[2] ?? '0';
  const fraction = match[3] ?? '';
  const denominator = 10n ** BigInt(fraction.length);
  const numerator = sign * BigInt(whole + fraction);
  // "-0%" would pass a non-negative check although the CRD pattern (no sign) refuses it.
  if (sign < 0n && numerator === 0n) throw new IntOrStringError(`invalid value for IntOrString: ${JSON.stringify(value)} is a signed zero`);
  return { kind: 'percent', value: Number(numerator) / Number(denominator), numerator, denominator, text: value };
}

/** Like parseIntOrPercent, but undefined instead of an exception. */
export function tryParseIntOrPercent(value: IntOrString, options: ParseOptions = {}): ParsedIntOrPercent | undefined {
  try {
    return parseIntOrPercent(value, options);
  } catch (error) {
    if (error instanceof IntOrStringError) return undefined;
    throw error;
  }
}

function divide(n: bigint, d: bigint, rounding: Rounding): bigint {
  const q = n / d; // truncates toward zero
  const exact = q * d === n;
  if (exact) return q;
  const positive = n > 0n === d > 0n;
  if (rounding === 'up') return positive ? q + 1n : q;
  return positive ? q : q - 1n;
}

/** percent × total / 100, rounded as asked. */
export function scalePercent(parsed: ParsedIntOrPercent, total: number, rounding: Rounding): number {
  if (parsed.kind === 'int') return parsed.value;
  return Number(divide(parsed.numerator * BigInt(total), parsed.denominator * 100n, rounding));
}

/**
 * Kubernetes' GetScaledValueFromIntOrPercent: an int as given, a percentage of `total` rounded up
 * or down. Accepts decimal percentages (the exact value is used).
 */
export function scaledValue(value: IntOrString, total: number, rounding: Rounding): number {
  if (!Number.isSafeInteger(total)) throw new RangeError(`total must be an integer, got ${total}`);
  return scalePercent(parseIntOrPercent(value, { decimalPercent: true }), total, rounding);
}

/**
 * The partition P (as OpenKruise's CloneSet resolves it): an int as given; a percentage of replicas rounded up, except
 * that with replicas > 1 a percentage other than exactly "100%" that would keep every pod old keeps
 * one fewer ("at least one pod is updated"). Clamped to [0, replicas]. Throws on an invalid value.
 */
export function resolvePartition(partition: IntOrString | undefined, replicas: number): number {
  if (partition === undefined) return 0;
  const parsed = parseIntOrPercent(partition, { decimalPercent: true });
  let p = scalePercent(parsed, replicas, 'up');
  if (parsed.kind === 'percent' && replicas > 1 && p === replicas && parsed.text !== '100%') p = replicas - 1;
  return Math.min(Math.max(p, 0), Math.max(replicas, 0));
}

/** Unset scaleStrategy.maxUnavailable: no limit. */
export const UNLIMITED = 2147483647;
export const DEFAULT_UPDATE_MAX_UNAVAILABLE = '20%';

export interface CloneSetKnobs {
  /** P: pods to keep at the current revision. */
  partition: number;
  /** S: surge, 0 while paused. */
  maxSurge: number;
  /** U: update maxUnavailable (rounded up when S = 0, down when S > 0). */
  maxUnavailable: number;
  /** SU: scale-out maxUnavailable; UNLIMITED when unset. */
  scaleMaxUnavailable: number;
}

export interface KnobSource {
  replicas?: number;
  updateStrategy?: {
    partition?: IntOrString;
    maxSurge?: IntOrString;
    maxUnavailable?: IntOrString;
    paused?: boolean;
  };
  scaleStrategy?: { maxUnavailable?: IntOrString };
}

// The controller parses S, U and SU with the integer-only parser and ignores the error, so a
// decimal percentage there resolves to 0, as in OpenKruise's CloneSet. Admission refuses such values.
function lenientInt(value: IntOrString, total: number, rounding: Rounding): number {
  const parsed = tryParseIntOrPercent(value);
  return parsed === undefined ? 0 : scalePercent(parsed, total, rounding);
}

/** Resolves P, S, U and SU of a CloneSet spec (defaults applied). Throws on an invalid partition. */
export function resolveCloneSetKnobs(spec: KnobSource): CloneSetKnobs {
  const replicas = spec.replicas ?? 1;
  const strategy = spec.updateStrategy ?? {};
  const partition = resolvePartition(strategy.partition, replicas);
  let maxSurge = strategy.maxSurge === undefined ? 0 : lenientInt(strategy.maxSurge, replicas, 'up');
  if (strategy.paused === true) maxSurge = 0;
  const maxUnavailable = lenientInt(
    strategy.maxUnavailable ?? DEFAULT_UPDATE_MAX_UNAVAILABLE,
    replicas,
    maxSurge === 0 ? 'up' : 'down',
  );
  const su = spec.scaleStrategy?.maxUnavailable;
  const scaleMaxUnavailable = su === undefined ? UNLIMITED : lenientInt(su, replicas, 'up');
  return { partition, maxSurge, maxUnavailable, scaleMaxUnavailable };
}
