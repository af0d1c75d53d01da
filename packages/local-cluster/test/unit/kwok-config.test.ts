import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OWNER_REFERENCES_ENFORCEMENT, POD_CIDR, admissionPluginsArg, kwokConfiguration, podAddresses } from '../../src/kwok-config.ts';

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

describe('admission plugins of the cluster', () => {
  const apiserverArgs = (text: string): { key: string; value: string }[] => {
    const ctl = parse(text.split('\n---\n')[1] ?? '') as { componentsPatches: { name: string; extraArgs: { key: string; value: string }[] }[] };
    return ctl.componentsPatches.find((p) => p.name === 'kube-apiserver')?.extraArgs ?? [];
  };

  it('runs only kube-apiserver\'s default plugins unless asked', () => {
    expect(apiserverArgs(kwokConfiguration('/pki')).some((a) => a.key === 'enable-admission-plugins')).toBe(false);
    expect(apiserverArgs(kwokConfiguration('/pki', { extraAdmissionPlugins: [] })).some((a) => a.key === 'enable-admission-plugins')).toBe(false);
  });

  it('adds OwnerReferencesPermissionEnforcement when asked', () => {
    expect(apiserverArgs(kwokConfiguration('/pki', { extraAdmissionPlugins: [OWNER_REFERENCES_ENFORCEMENT] }))).toContainEqual({
      key: 'enable-admission-plugins',
      value: 'OwnerReferencesPermissionEnforcement',
    });
  });

  it('passes any list of plugin names as one comma-separated value, each once', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[A-Z][A-Za-z]{0,20}$/), { minLength: 1, maxLength: 6 }), (plugins) => {
        const arg = apiserverArgs(kwokConfiguration('/pki', { extraAdmissionPlugins: plugins })).find((a) => a.key === 'enable-admission-plugins');
        expect(arg?.value.split(',')).toEqual([...new Set(plugins)]);
      }),
    );
  });

  it('refuses a name that is not a plugin name, naming the option', () => {
    expect(() => admissionPluginsArg(['Ok', 'Bad,Two'])).toThrow(/extraAdmissionPlugins: "Bad,Two"/);
    expect(() => admissionPluginsArg([''])).toThrow(/extraAdmissionPlugins/);
  });
});
