// Where webhook calls may go, as pure functions shared by admission (which
// refuses a rule naming a URL the controller would refuse) and the HTTP client (which checks
// again on every call, and checks the address it actually dials).
//
// The allow-list holds origins, `scheme://host[:port]`, optionally with a path the URL must stay
// under; a URL is compared on its parsed scheme, host and port, never as a string prefix, so
// `https://hooks.example.com@169.254.169.254/` (host 169.254.169.254) does not pass an entry
// `https://hooks.example.com`. An entry names one host exactly (no wildcard), and a URL under a
// path-scoped entry may not hide a separator in an escape (`%2F`, `%5C`): a server that decodes
// them would see a path outside the entry. Which addresses may be called at all is
// address-policy.ts.
import { parseIPv4 } from './address-policy.ts';

export interface AllowedOrigin {
  /** `http:` or `https:` */
  protocol: string;
  /** Lower-case host name or IP (IPv6 in brackets), as the URL parser writes it. */
  hostname: string;
  port: string;
  /** `/` for the whole origin, else the path URLs must equal or stay below. */
  path: string;
}

export class OutboundPolicyError extends Error {
  override name = 'OutboundPolicyError';
}

/** A host name as DNS spells it (RFC 1123 labels), written in an allow-list entry. */
const HOSTNAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i;

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OutboundPolicyError(`"${text}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundPolicyError(`"${text}" must start with http:// or https://`);
  return url;
}

const portOf = (url: URL): string => url.port || DEFAULT_PORTS[url.protocol]!;

/** An allow-list entry: `scheme://host[:port][/path]`, without user, query or fragment. */
export function parseAllowedOrigin(entry: string): AllowedOrigin {
  const url = parseHttpUrl(entry);
  // The URL parser keeps `*` and percent-decodes the host: check the text as written.
  const written = /^[a-z]+:\/\/([^/?#]*)/i.exec(entry)?.[1]?.replace(/^.*@/, '').replace(/:\d*$/, '') ?? '';
  if (!HOSTNAME.test(written) && !/^\[[0-9a-f:.]+\]$/i.test(written)) {
    throw new OutboundPolicyError(`"${entry}" must name one host (letters, digits, '-' and '.', or an IP address; no wildcard)`);
  }
  if (url.username || url.password) throw new OutboundPolicyError(`"${entry}" must not contain user information`);
  if (url.search || url.hash) throw new OutboundPolicyError(`"${entry}" must not have a query or fragment`);
  return { protocol: url.protocol, hostname: url.hostname, port: portOf(url), path: url.pathname };
}

function underPath(pathname: string, prefix: string): boolean {
  if (prefix === '/') return true;
  if (/%(2f|5c)/i.test(pathname)) return false;
  if (pathname === prefix) return true;
  return pathname.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
}

/** Whether the URL's parsed scheme, host and port equal an entry's (and its path is under the entry's); an empty list allows any. */
export function urlAllowed(text: string, allowed: readonly AllowedOrigin[]): boolean {
  if (allowed.length === 0) return true;
  let url: URL;
  try {
    url = parseHttpUrl(text);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  return allowed.some((o) => o.protocol === url.protocol && o.hostname === url.hostname && o.port === portOf(url) && underPath(url.pathname, o.path));
}

/** The IP address a URL names literally (brackets removed), or undefined for a host name. */
export function literalAddress(text: string): string | undefined {
  let host: string;
  try {
    host = new URL(text).hostname;
  } catch {
    return undefined;
  }
  if (host.startsWith('[') && host.endsWith(']')) return host.slice(1, -1);
  return parseIPv4(host) ? host : undefined;
}
