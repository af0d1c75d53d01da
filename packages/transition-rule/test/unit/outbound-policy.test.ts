import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLinkLocalAddress, literalAddress, parseAllowedOrigin, urlAllowed } from '../../src/core/outbound-policy.ts';

describe('the allow-list compares parsed origins, never string prefixes', () => {
  const list = ['https://hooks.example.com', 'http://10.0.0.7:8080/team-a/'].map(parseAllowedOrigin);

  it.each([
    ['the origin itself', 'https://hooks.example.com/check', true],
    ['its default port written out', 'https://hooks.example.com:443/check', true],
    ['host names are case-insensitive', 'https://HOOKS.example.com/x', true],
    ['user information naming the allowed host, real host the metadata server', 'https://hooks.example.com@169.254.169.254/', false],
    ['a longer host starting with the allowed one', 'https://hooks.example.com.evil.net/check', false],
    ['another port', 'https://hooks.example.com:8443/check', false],
    ['another scheme', 'http://hooks.example.com/check', false],
    ['under the entry path', 'http://10.0.0.7:8080/team-a/check', true],
    ['the entry path is a whole segment', 'http://10.0.0.7:8080/team-ab/check', false],
    ['dot segments are resolved before comparing', 'http://10.0.0.7:8080/team-a/../admin', false],
    ['encoded dot segments too', 'http://10.0.0.7:8080/team-a/%2e%2e/admin', false],
    ['the same address written in hex is the same host', 'http://0xa.0.0.7:8080/team-a/x', true],
    ['not a URL', 'hooks.example.com', false],
  ])('%s: %s -> %s', (_name, url, expected) => {
    expect(urlAllowed(url, list)).toBe(expected);
  });

  it('an empty list allows any URL', () => {
    expect(urlAllowed('http://anything.internal/x', [])).toBe(true);
  });

  it.each([
    ['ftp://x', /http/],
    ['https://user:pw@hooks.example.com', /user information/],
    ['https://hooks.example.com/?a=1', /query or fragment/],
    ['not a url', /absolute URL/],
  ])('refuses the entry %s', (entry, message) => {
    expect(() => parseAllowedOrigin(entry)).toThrow(message);
  });

  it('property: a URL whose text starts with an allowed entry but whose host differs is refused', () => {
    const allowed = [parseAllowedOrigin('https://hooks.example.com')];
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9.-]{1,20}$/), fc.constantFrom('@', '.', '-', ':99@'), (rest, joiner) => {
        const url = `https://hooks.example.com${joiner}${rest}/x`;
        let host: string;
        try {
          host = new URL(url).host;
        } catch {
          return;
        }
        expect(urlAllowed(url, allowed)).toBe(host === 'hooks.example.com');
      }),
    );
  });
});

describe('link-local and cloud-metadata addresses', () => {
  it.each([
    ['169.254.169.254', true],
    ['169.254.0.1', true],
    ['169.253.255.255', false],
    ['169.255.0.1', false],
    ['127.0.0.1', false],
    ['10.0.0.1', false],
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['febf:ffff::1', true],
    ['fec0::1', false],
    ['fd00:ec2::254', true],
    ['fd00:0ec2:0:0:0:0:0:0254', true],
    ['fd00:ec2::253', false],
    ['::ffff:169.254.169.254', true],
    ['::ffff:a9fe:a9fe', true],
    ['::ffff:127.0.0.1', false],
    ['::1', false],
    ['2001:db8::1', false],
    ['metadata.google.internal', false],
    ['1:2:3:4:5:6:7:8:9', false],
  ])('%s -> %s', (address, expected) => {
    expect(isLinkLocalAddress(address)).toBe(expected);
  });

  it.each([
    ['http://169.254.169.254/latest', '169.254.169.254'],
    ['http://2852039166/latest', '169.254.169.254'],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254'],
    ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe'],
    ['https://hooks.example.com/', undefined],
  ])('literalAddress(%s) = %s', (url, address) => {
    expect(literalAddress(url)).toBe(address);
  });

  it('property: every IPv4 address is link-local exactly when its first two octets are 169.254', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ip) => {
        expect(isLinkLocalAddress(ip)).toBe(ip.startsWith('169.254.'));
        expect(isLinkLocalAddress(`::ffff:${ip}`)).toBe(ip.startsWith('169.254.'));
      }),
    );
  });

  it('property: an IPv6 address is refused exactly when it is in fe80::/10, maps 169.254.0.0/16, or is fd00:ec2::254', () => {
    // The URL parser's canonical form (RFC 5952) as the reference.
    const canonical = (ip: string): string => new URL(`http://[${ip}]/`).hostname.slice(1, -1);
    fc.assert(
      fc.property(fc.oneof(fc.ipV6(), fc.constantFrom('fe80::', 'febf::1', 'fd00:ec2::254', '::ffff:169.254.1.2')), (ip) => {
        const c = canonical(ip);
        const first = c.startsWith('::') ? 0 : parseInt(c.split(':')[0]!, 16);
        const expected = (first & 0xffc0) === 0xfe80 || /^::ffff:a9fe:[0-9a-f]{1,4}$/.test(c) || c === 'fd00:ec2::254';
        expect(isLinkLocalAddress(ip)).toBe(expected);
      }),
    );
  });
});
