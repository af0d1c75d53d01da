// Where webhook calls may go (decisions.md 8), as pure functions shared by admission (which
// refuses a rule naming a URL the controller would refuse) and the HTTP client (which checks
// again on every call, and checks the address it actually dials).
//
// The allow-list holds origins, `scheme://host[:port]`, optionally with a path the URL must stay
// under; a URL is compared on its parsed scheme, host and port, never as a string prefix, so
// `https://hooks.example.com@169.254.169.254/` (host 169.254.169.254) does not pass an entry
// `https://hooks.example.com`. Link-local and cloud-metadata addresses (169.254.0.0/16,
// fe80::/10, fd00:ec2::254) are refused unless the operator allows them.

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
  if (url.username || url.password) throw new OutboundPolicyError(`"${entry}" must not contain user information`);
  if (url.search || url.hash) throw new OutboundPolicyError(`"${entry}" must not have a query or fragment`);
  return { protocol: url.protocol, hostname: url.hostname, port: portOf(url), path: url.pathname };
}

function underPath(pathname: string, prefix: string): boolean {
  if (prefix === '/' || pathname === prefix) return true;
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

function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** The 16 bytes of an IPv6 address (zone id ignored), or undefined if it is not one. */
function parseIPv6(text: string): number[] | undefined {
  const address = text.split('%')[0]!.toLowerCase();
  if (!/^[0-9a-f:.]+$/.test(address) || address.split('::').length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIPv4(piece);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-f]{1,4}$/.test(piece)) out.push(parseInt(piece, 16));
      else return undefined;
    }
    return out;
  };
  const [head, tail] = address.split('::') as [string, string | undefined];
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  if (!left || !right) return undefined;
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  const words = [...left, ...Array<number>(tail === undefined ? 0 : missing).fill(0), ...right];
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

const isLinkLocalV4 = (b: readonly number[]): boolean => b[0] === 169 && b[1] === 254;

/**
 * Link-local or cloud-metadata: 169.254.0.0/16 (also IPv4-mapped, ::ffff:169.254.x.x),
 * fe80::/10, and AWS's IPv6 metadata address fd00:ec2::254.
 */
export function isLinkLocalAddress(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4) return isLinkLocalV4(v4);
  const v6 = parseIPv6(address);
  if (!v6) return false;
  if (v6[0] === 0xfe && (v6[1]! & 0xc0) === 0x80) return true;
  const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
  if (mapped && isLinkLocalV4(v6.slice(12))) return true;
  const metadata = [0xfd, 0x00, 0x0e, 0xc2, ...Array<number>(10).fill(0), 0x02, 0x54];
  return v6.every((b, i) => b === metadata[i]);
}
