// `npm start` points the CloneSet CRD's conversion webhook at itself and hands it back on exit
// to the webhook it found (the test run's shared one, say), never to one it was not given.
import { describe, expect, it } from 'vitest';
import type { CrdConversionState } from '../../src/certs/crd-conversion.ts';
import { handBackCrdConversion, pointCrdConversion } from '../../src/local-install.ts';

/** kubectl against one CRD: `get -o json` and `patch --type=merge` of spec.conversion. */
function fakeKubectl(conversion: CrdConversionState) {
  let current: unknown = conversion;
  const patches: unknown[] = [];
  const kubectl = (args: readonly string[]): Promise<string> => {
    if (args[0] === 'get') return Promise.resolve(JSON.stringify({ spec: { conversion: current } }));
    const body = JSON.parse(args[args.indexOf('-p') + 1]!) as { spec: { conversion: Record<string, unknown> } };
    patches.push(body);
    // What the apiserver's merge patch leaves: null removes a key.
    const merge = (a: unknown, b: unknown): unknown => {
      if (b === null || typeof b !== 'object' || Array.isArray(b) || a === null || typeof a !== 'object' || Array.isArray(a)) return b;
      const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
      for (const [k, v] of Object.entries(b)) {
        if (v === null) delete out[k];
        else out[k] = merge(out[k], v);
      }
      return out;
    };
    current = merge(current, body.spec.conversion);
    return Promise.resolve('');
  };
  return { kubectl, patches, current: () => current };
}

const session = { url: 'https://127.0.0.1:4000/convert', caBundle: 'c2Vzc2lvbg==' };
const webhook = (clientConfig: Record<string, unknown>): CrdConversionState => ({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig } });
const mine = 'https://127.0.0.1:9443/convert';

describe('pointCrdConversion', () => {
  it('replaces the whole clientConfig: a service and an old caBundle go', async () => {
    const k = fakeKubectl(webhook({ service: { namespace: 'kruise-system', name: 'kruise-webhook-service' }, caBundle: 'b2xk' }));
    await pointCrdConversion(k.kubectl, 'clonesets.apps.kruise.io', { url: mine });
    expect(k.current()).toEqual(webhook({ url: mine }));
  });
});

describe('handBackCrdConversion', () => {
  it('hands conversion back to the webhook it pointed at before', async () => {
    const k = fakeKubectl(webhook({ url: mine, caBundle: 'bWluZQ==' }));
    expect(await handBackCrdConversion(k.kubectl, 'clonesets.apps.kruise.io', mine, webhook(session))).toBe(true);
    expect(k.current()).toEqual(webhook(session));
  });

  it('leaves a CRD that another process has pointed elsewhere since', async () => {
    const k = fakeKubectl(webhook({ url: 'https://127.0.0.1:5000/convert' }));
    expect(await handBackCrdConversion(k.kubectl, 'clonesets.apps.kruise.io', mine, webhook(session))).toBe(false);
    expect(k.patches).toEqual([]);
  });

  it('leaves the CRD pointing at a stopped process when there was no webhook before, unless asked for the stanza it found', async () => {
    const k = fakeKubectl(webhook({ url: mine }));
    expect(await handBackCrdConversion(k.kubectl, 'clonesets.apps.kruise.io', mine, { strategy: 'None' })).toBe(false);
    expect(k.patches).toEqual([]);
    expect(await handBackCrdConversion(k.kubectl, 'clonesets.apps.kruise.io', mine, { strategy: 'None' }, { restoreNone: true })).toBe(true);
    expect(k.current()).toEqual({ strategy: 'None' });
  });
});
