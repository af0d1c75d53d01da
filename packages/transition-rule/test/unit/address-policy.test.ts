import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADDRESS_CLASSES, DEFAULT_ADDRESS_POLICY, addressPolicy, addressRefusal, parseCidr, refusedAddressClass } from '../../src/core/address-policy.ts';

describe('the default address policy', () => {
  it.each([
    // Link-local and AWS's IPv6 metadata address, as before.
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fd00:ec2::254', 'link-local'],
    ['fd00:0ec2:0:0:0:0:0:0254', 'link-local'],
    // The other clouds' metadata and control addresses.
    ['100.100.100.200', 'cloud-metadata'],
    ['168.63.129.16', 'cloud-metadata'],
    ['100.64.0.1', 'shared-address-space'],
    ['100.127.255.255', 'shared-address-space'],
    // Unspecified and loopback.
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    // IPv6 forms carrying an IPv4 address are checked as that address.
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:0:100.100.100.200', 'cloud-metadata'],
    ['::168.63.129.16', 'cloud-metadata'],
    ['::a9fe:a9fe', 'link-local'],
    ['::2', 'unspecified'],
    ['64:ff9b::169.254.169.254', 'link-local'],
    ['64:ff9b::a83f:8110', 'cloud-metadata'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::100.64.1.1', 'shared-address-space'],
    // Allowed: public and private (in-cluster Services live there).
    ['10.96.0.1', undefined],
    ['172.16.0.1', undefined],
    ['192.168.1.1', undefined],
    ['fd12::1', undefined],
    ['8.8.8.8', undefined],
    ['100.63.255.255', undefined],
    ['100.128.0.0', undefined],
    ['169.253.255.255', undefined],
    ['fec0::1', undefined],
    ['fd00:ec2::253', undefined],
    ['64:ff9b::808:808', undefined],
    ['2001:db8::1', undefined],
    ['metadata.google.internal', undefined],
    ['1:2:3:4:5:6:7:8:9', undefined],
  ])('%s -> %s', (address, expected) => {
    expect(refusedAddressClass(address, DEFAULT_ADDRESS_POLICY)).toBe(expected);
  });

  it('a refusal names the class and the flag that allows it', () => {
    expect(addressRefusal('127.0.0.1', DEFAULT_ADDRESS_POLICY)).toBe('127.0.0.1 is a loopback address, refused unless --transition-rule-webhook-allow-addresses lists loopback');
  });
});

describe('the operator allows classes by name and narrows private ranges', () => {
  it('each class is allowed only by its own name', () => {
    const samples: Record<string, string> = { loopback: '::1', unspecified: '0.0.0.0', 'link-local': '169.254.169.254', 'cloud-metadata': '168.63.129.16', 'shared-address-space': '100.64.0.1' };
    for (const allowed of ADDRESS_CLASSES) {
      const policy = addressPolicy({ allow: [allowed] });
      for (const [cls, address] of Object.entries(samples)) expect(refusedAddressClass(address, policy)).toBe(cls === allowed ? undefined : cls);
    }
  });

  it('allowing the shared address space does not allow Alibaba\'s metadata address inside it', () => {
    expect(refusedAddressClass('100.100.100.200', addressPolicy({ allow: ['shared-address-space'] }))).toBe('cloud-metadata');
  });

  it('a narrowed private list refuses private addresses outside it, also in their IPv6 forms', () => {
    const policy = addressPolicy({ privateCidrs: ['10.96.0.0/12', 'fd00:1::/32'] });
    expect(refusedAddressClass('10.96.0.10', policy)).toBeUndefined();
    expect(refusedAddressClass('10.0.0.1', policy)).toBe('private');
    expect(refusedAddressClass('::ffff:192.168.0.1', policy)).toBe('private');
    expect(refusedAddressClass('fd00:1::5', policy)).toBeUndefined();
    expect(refusedAddressClass('fd00:2::5', policy)).toBe('private');
    expect(refusedAddressClass('8.8.8.8', policy)).toBeUndefined();
    expect(addressRefusal('10.0.0.1', policy)).toBe('10.0.0.1 is a private address outside --transition-rule-webhook-private-cidrs (10.96.0.0/12,fd00:1::/32)');
    expect(refusedAddressClass('10.0.0.1', addressPolicy({ privateCidrs: [] }))).toBe('private');
  });

  it.each([['loopbacks', /not an address class/], ['*', /not an address class/]])('refuses the class %s', (name, message) => {
    expect(() => addressPolicy({ allow: [name] })).toThrow(message);
  });

  it.each(['10.0.0.0', '10.0.0.0/33', '::/129', 'x/8', '10.0.0.0/8/8', '10.0.0.0/-1'])('refuses the CIDR %s', (cidr) => {
    expect(() => parseCidr(cidr)).toThrow(/not a CIDR/);
  });
});

describe('properties', () => {
  const v4Class = (ip: string): string | undefined => {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    if (ip === '100.100.100.200' || ip === '168.63.129.16') return 'cloud-metadata';
    if (a === 127) return 'loopback';
    if (a === 0) return 'unspecified';
    if (a === 169 && b === 254) return 'link-local';
    if (a === 100 && b >= 64 && b <= 127) return 'shared-address-space';
    return undefined;
  };
  const hex = (ip: string): string => {
    const [a, b, c, d] = ip.split('.').map(Number) as [number, number, number, number];
    return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  };

  it('an IPv4 address is refused as its class says, and so are its mapped, compatible and NAT64 forms', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.constantFrom('100.100.100.200', '168.63.129.16', '100.64.0.0', '0.0.0.0')), (ip) => {
        const expected = v4Class(ip);
        expect(refusedAddressClass(ip, DEFAULT_ADDRESS_POLICY)).toBe(expected);
        expect(refusedAddressClass(`::ffff:${ip}`, DEFAULT_ADDRESS_POLICY)).toBe(expected);
        expect(refusedAddressClass(`64:ff9b::${hex(ip)}`, DEFAULT_ADDRESS_POLICY)).toBe(expected);
        // ::/96 holds IPv6's own :: and ::1; every other address there is IPv4-compatible.
        if (ip !== '0.0.0.0' && ip !== '0.0.0.1') expect(refusedAddressClass(`::${ip}`, DEFAULT_ADDRESS_POLICY)).toBe(expected);
      }),
    );
  });

  it('with every class allowed and every private range kept, no address is refused', () => {
    const open = addressPolicy({ allow: [...ADDRESS_CLASSES] });
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (ip) => {
        expect(refusedAddressClass(ip, open)).toBeUndefined();
      }),
    );
  });
});
