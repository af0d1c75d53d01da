// Parsers for flag values: each returns the typed value or throws a ValueError whose message
// says what was expected. The caller adds which flag (and which source) the value came from.
import { addressPolicy, parseAllowedOrigin } from '@cloneset-suite/transition-rule';

export class ValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ValueError';
  }
}

/** A value from the command line or the environment is a string; from YAML it may be typed. */
export type RawValue = string | number | boolean | null | readonly unknown[] | Record<string, unknown>;

function asText(raw: RawValue): string {
  if (typeof raw === 'string') return raw.trim();
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  throw new ValueError(`expected a scalar, got ${Array.isArray(raw) ? 'a list' : raw === null ? 'null' : 'a map'}`);
}

export function parseString(raw: RawValue): string {
  return asText(raw);
}

export function parseBool(raw: RawValue): boolean {
  if (typeof raw === 'boolean') return raw;
  const s = asText(raw).toLowerCase();
  if (s === 'true' || s === '1' || s === 't') return true;
  if (s === 'false' || s === '0' || s === 'f') return false;
  throw new ValueError('must be true or false');
}

export function parseInteger(raw: RawValue, { min, max }: { min: number; max: number }): number {
  const s = asText(raw);
  if (!/^-?\d+$/.test(s)) throw new ValueError('must be an integer');
  const n = Number(s);
  if (n < min || n > max) throw new ValueError(`must be between ${min} and ${max}`);
  return n;
}

export function parsePositiveNumber(raw: RawValue): number {
  const s = asText(raw);
  const n = Number(s);
  if (s === '' || !Number.isFinite(n) || n <= 0) throw new ValueError('must be a number greater than 0');
  return n;
}

const durationUnits: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A Go duration (`15s`, `1m30s`, `500ms`, `0`), in milliseconds. */
export function parseDuration(raw: RawValue): number {
  const s = asText(raw);
  if (s === '0') return 0;
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < s.length) {
    part.lastIndex = at;
    const m = part.exec(s);
    if (!m) throw new ValueError('must be a duration such as 30s, 1m30s or 500ms');
    total += Number(m[1]) * (durationUnits[m[2] ?? ''] ?? 0);
    at = part.lastIndex;
  }
  if (s === '') throw new ValueError('must be a duration such as 30s, 1m30s or 500ms');
  return total;
}

/** Formats milliseconds as a Go-style duration for help text and logs. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}

export interface BindAddress {
  /** '' means every interface. */
  host: string;
  port: number;
}

/** `:8080`, `127.0.0.1:8080`, `[::1]:8080`; `0` disables the server (undefined). */
export function parseBindAddress(raw: RawValue): BindAddress | undefined {
  const s = asText(raw);
  if (s === '0') return undefined;
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):(\d{1,5})$/.exec(s);
  if (!m) throw new ValueError('must be host:port or :port (or 0 to disable)');
  const port = Number(m[2]);
  if (port > 65_535) throw new ValueError('port must be between 0 and 65535');
  return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port };
}

export function formatBindAddress(a: BindAddress | undefined): string {
  if (!a) return '0';
  return `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;
}

/** Comma-separated (or a YAML list); empty items are dropped. */
export function parseList(raw: RawValue): string[] {
  const items = Array.isArray(raw) ? raw.map((v) => asText(v as RawValue)) : asText(raw).split(',');
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

/** `a=1,b=2` (or a YAML map) as ordered pairs. */
export function parsePairs(raw: RawValue): [string, string][] {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    return Object.entries(raw).map(([k, v]) => [k, asText(v as RawValue)]);
  }
  return parseList(raw).map((item) => {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new ValueError(`"${item}" is not of the form key=value`);
    return [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
  });
}

export function parseHttpsUrl(raw: RawValue): string {
  const s = asText(raw).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw new ValueError('must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:') throw new ValueError('must use https:// (the apiserver calls webhooks over TLS only)');
  if (url.search || url.hash) throw new ValueError('must not have a query or fragment');
  return s;
}

/** An allow-list entry of PodTransitionRule webhooks: an origin, optionally with a path. */
export function parseUrlPrefix(item: string): string {
  try {
    parseAllowedOrigin(item);
  } catch (err) {
    throw new ValueError((err as Error).message);
  }
  return item;
}

export function parseAddressClass(item: string): string {
  try {
    addressPolicy({ allow: [item] });
  } catch (err) {
    throw new ValueError((err as Error).message);
  }
  return item;
}

export function parseCidrItem(item: string): string {
  try {
    addressPolicy({ privateCidrs: [item] });
  } catch (err) {
    throw new ValueError((err as Error).message);
  }
  return item;
}

export function parseEnum<T extends string>(raw: RawValue, allowed: readonly T[]): T {
  const s = asText(raw);
  if (!(allowed as readonly string[]).includes(s)) throw new ValueError(`must be one of ${allowed.join(', ')}`);
  return s as T;
}

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function parseNamespace(raw: RawValue, { allowEmpty }: { allowEmpty: boolean }): string {
  const s = asText(raw);
  if (s === '' && allowEmpty) return s;
  if (s.length > 63 || !dns1123Label.test(s)) throw new ValueError('must be a namespace name (a DNS-1123 label)');
  return s;
}

export function parseObjectName(raw: RawValue): string {
  const s = asText(raw);
  if (s.length > 253 || !dns1123Subdomain.test(s)) throw new ValueError('must be an object name (a DNS-1123 subdomain)');
  return s;
}

/** `4Mi`, `1048576`, `512Ki`: a byte count. */
export function parseByteSize(raw: RawValue): number {
  const s = asText(raw);
  const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(s);
  if (!m) throw new ValueError('must be a byte count such as 1048576 or 6Mi');
  const n = Number(m[1]) * ({ Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 }[m[2] ?? ''] ?? 1);
  if (n <= 0) throw new ValueError('must be greater than 0');
  return n;
}
