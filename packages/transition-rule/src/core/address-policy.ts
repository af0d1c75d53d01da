// Which IP addresses webhook calls may reach, as pure functions shared by admission (a URL naming
// an address literally) and the HTTP client (the address actually dialled). A tenant's rule must
// not make the controller call the node's metadata or control endpoints, itself, or anything
// bound to the unspecified address: every such class is refused unless the operator allows it by
// name. The clouds' addresses: AWS, GCP and Azure metadata at 169.254.169.254 (AWS also
// fd00:ec2::254), Alibaba's at 100.100.100.200 in the shared address space 100.64.0.0/10
// (RFC 6598), Azure's WireServer at 168.63.129.16. IPv6 forms that carry an IPv4 address (mapped
// ::ffff:0:0/96, translated ::ffff:0:0:0/96, IPv4-compatible ::/96, NAT64 64:ff9b::/96, RFC 6052)
// are checked as that IPv4 address, so a NAT64 gateway cannot be used to reach one.
// Private ranges (RFC 1918, fc00::/7) hold in-cluster Services: allowed, unless the operator
// narrows them to a list of CIDRs.

/** Classes refused by default, each allowed by naming it in the operator's list. */
export const ADDRESS_CLASSES = ['loopback', 'unspecified', 'link-local', 'cloud-metadata', 'shared-address-space'] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

export const ALLOW_ADDRESSES_FLAG = '--transition-rule-webhook-allow-addresses';
export const PRIVATE_CIDRS_FLAG = '--transition-rule-webhook-private-cidrs';

/** Every private range: the default of the narrowing list. */
export const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'] as const;

export interface Cidr {
  /** 4 or 16 bytes. */
  bytes: readonly number[];
  prefix: number;
  text: string;
}

export interface AddressPolicy {
  allowed: ReadonlySet<AddressClass>;
  /** Private addresses outside these are refused. */
  privateCidrs: readonly Cidr[];
}

export const DEFAULT_ADDRESS_POLICY: AddressPolicy = { allowed: new Set(), privateCidrs: PRIVATE_RANGES.map(parseCidr) };

export class AddressPolicyError extends Error {
  override name = 'AddressPolicyError';
}

export function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** The 16 bytes of an IPv6 address (zone id ignored), or undefined if it is not one. */
export function parseIPv6(text: string): number[] | undefined {
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

function parseBytes(address: string): number[] | undefined {
  return parseIPv4(address) ?? parseIPv6(address);
}

function inPrefix(bytes: readonly number[], net: readonly number[], prefix: number): boolean {
  if (bytes.length !== net.length) return false;
  for (let bit = 0; bit < prefix; bit += 8) {
    const take = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (net[bit / 8]! & mask)) return false;
  }
  return true;
}

/** `address/prefix`, IPv4 or IPv6; the address may have host bits set (they are ignored). */
export function parseCidr(text: string): Cidr {
  const [address, prefixText, extra] = text.trim().split('/');
  const bytes = address === undefined ? undefined : parseBytes(address);
  const max = bytes?.length === 4 ? 32 : 128;
  if (!bytes || extra !== undefined || prefixText === undefined || !/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) {
    throw new AddressPolicyError(`"${text}" is not a CIDR (address/prefix, e.g. 10.96.0.0/12 or fd00::/8)`);
  }
  return { bytes, prefix: Number(prefixText), text: text.trim() };
}

const zeros = (bytes: readonly number[], from: number, to: number): boolean => bytes.slice(from, to).every((b) => b === 0);

/** The IPv4 address an IPv6 address carries (mapped, translated, compatible or NAT64), if any. */
function embeddedIPv4(v6: readonly number[]): number[] | undefined {
  const tail = v6.slice(12);
  const mapped = zeros(v6, 0, 10) && v6[10] === 0xff && v6[11] === 0xff;
  const translated = zeros(v6, 0, 8) && v6[8] === 0xff && v6[9] === 0xff && zeros(v6, 10, 12);
  // ::/96 holds :: and ::1 too: those are IPv6's own unspecified and loopback addresses.
  const compatible = zeros(v6, 0, 12) && !(zeros(v6, 12, 15) && v6[15]! <= 1);
  const nat64 = inPrefix(v6, [0x00, 0x64, 0xff, 0x9b, ...Array<number>(12).fill(0)], 96);
  return mapped || translated || compatible || nat64 ? tail : undefined;
}

type Kind = AddressClass | 'private';

const V4_CLASSES: readonly [Kind, Cidr][] = (
  [
    ['cloud-metadata', '100.100.100.200/32'],
    ['cloud-metadata', '168.63.129.16/32'],
    ['loopback', '127.0.0.0/8'],
    ['unspecified', '0.0.0.0/8'],
    ['link-local', '169.254.0.0/16'],
    ['shared-address-space', '100.64.0.0/10'],
    ['private', '10.0.0.0/8'],
    ['private', '172.16.0.0/12'],
    ['private', '192.168.0.0/16'],
  ] as const
).map(([kind, cidr]) => [kind, parseCidr(cidr)]);

const V6_CLASSES: readonly [Kind, Cidr][] = (
  [
    ['loopback', '::1/128'],
    ['unspecified', '::/128'],
    // AWS's IPv6 metadata address, refused with link-local as it always was.
    ['link-local', 'fd00:ec2::254/128'],
    ['link-local', 'fe80::/10'],
    ['private', 'fc00::/7'],
  ] as const
).map(([kind, cidr]) => [kind, parseCidr(cidr)]);

function classOf(bytes: readonly number[]): { kind: Kind | undefined; bytes: readonly number[] } {
  const v4 = bytes.length === 4 ? bytes : embeddedIPv4(bytes);
  const effective = v4 ?? bytes;
  const table = v4 ? V4_CLASSES : V6_CLASSES;
  return { kind: table.find(([, cidr]) => inPrefix(effective, cidr.bytes, cidr.prefix))?.[0], bytes: effective };
}

/** The refused class of an address (an IPv4 or IPv6 literal), or undefined when it may be called. */
export function refusedAddressClass(address: string, policy: AddressPolicy): AddressClass | 'private' | undefined {
  const bytes = parseBytes(address);
  if (!bytes) return undefined;
  const { kind, bytes: effective } = classOf(bytes);
  if (kind === undefined) return undefined;
  if (kind === 'private') return policy.privateCidrs.some((c) => inPrefix(effective, c.bytes, c.prefix)) ? undefined : 'private';
  return policy.allowed.has(kind) ? undefined : kind;
}

/** Why the address is refused, naming the flag that would allow it; undefined when it is not. */
export function addressRefusal(address: string, policy: AddressPolicy): string | undefined {
  const refused = refusedAddressClass(address, policy);
  if (refused === undefined) return undefined;
  if (refused === 'private') return `${address} is a private address outside ${PRIVATE_CIDRS_FLAG} (${policy.privateCidrs.map((c) => c.text).join(',')})`;
  return `${address} is a ${refused} address, refused unless ${ALLOW_ADDRESSES_FLAG} lists ${refused}`;
}

/** The policy of the operator's lists; throws AddressPolicyError naming a bad entry. */
export function addressPolicy(options: { allow?: readonly string[]; privateCidrs?: readonly string[] } = {}): AddressPolicy {
  const allowed = new Set<AddressClass>();
  for (const name of options.allow ?? []) {
    if (!(ADDRESS_CLASSES as readonly string[]).includes(name)) throw new AddressPolicyError(`"${name}" is not an address class (one of ${ADDRESS_CLASSES.join(', ')})`);
    allowed.add(name as AddressClass);
  }
  return { allowed, privateCidrs: (options.privateCidrs ?? PRIVATE_RANGES).map(parseCidr) };
}
