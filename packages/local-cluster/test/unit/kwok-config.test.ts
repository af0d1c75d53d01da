import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { POD_CIDR, kwokConfiguration, podAddresses } from '../../src/kwok-config.ts';

describe('kwok configuration', () => {
  it('gives every pod of the bench\'s largest run (50,000 under one manager, plus a tenth being replaced) an IP of its CIDR', () => {
    const config = parse(kwokConfiguration('/cache/kwok/clusters/c1/pki').split('\n---\n')[0] ?? '') as { kind: string; options: { cidr: string; podPlayStageParallelism: number } };
    expect(config.kind).toBe('KwokConfiguration');
    expect(config.options.cidr).toBe(POD_CIDR);
    expect(podAddresses(config.options.cidr)).toBeGreaterThanOrEqual(55_000);
    expect(config.options.podPlayStageParallelism).toBe(32);
  });

  it('counts the addresses of a CIDR without its network and broadcast addresses', () => {
    expect(podAddresses('10.0.0.0/24')).toBe(254);
    expect(podAddresses('10.0.0.0/16')).toBe(65_534);
    expect(podAddresses('10.0.0.1/32')).toBe(0);
    expect(() => podAddresses('10.0.0.0/33')).toThrow(/not an IPv4 CIDR/);
    expect(() => podAddresses('fd00::/64')).toThrow(/not an IPv4 CIDR/);
  });
});
