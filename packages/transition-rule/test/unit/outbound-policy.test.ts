import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { literalAddress, parseAllowedOrigin, urlAllowed } from '../../src/core/outbound-policy.ts';

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
    ['an escaped slash under a path-scoped entry', 'http://10.0.0.7:8080/team-a/..%2Fadmin', false],
    ['an escaped backslash under a path-scoped entry', 'http://10.0.0.7:8080/team-a/..%5cadmin', false],
    ['an escaped slash under a whole-origin entry is the server\'s business', 'https://hooks.example.com/a%2Fb', true],
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
    ['https://*.example.com', /one host .*no wildcard/],
    ['https://*', /one host/],
    ['https://hooks_1.example.com', /one host/],
    ['https://hooks%2eexample.com', /one host/],
    ['https://hooks.example.com:8443/a/b', undefined],
    ['https://[fd00::1]:8443/', undefined],
  ])('the entry %s: %s', (entry, message) => {
    if (message) expect(() => parseAllowedOrigin(entry)).toThrow(message);
    else expect(() => parseAllowedOrigin(entry)).not.toThrow();
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

describe('literalAddress', () => {
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
});
