// Pointing a CRD's conversion webhook at the manager: which stanzas it writes over, in service
// mode and in URL mode, and that the apiserver trusts the CA before anyone is served its
// certificate, as for the admission webhooks.
import { ConflictError, NotFoundError, silentLogger, type KubeClient } from '@cloneset-suite/kube-runtime';
import { describe, expect, it } from 'vitest';
import { planBundle } from '../../src/certs/bundle.ts';
import { ensureCrdConversions, planCrdConversion, type CrdConversionGoal, type CrdConversionState } from '../../src/certs/crd-conversion.ts';
import { applyJsonPatch } from '../support/apply-patch.ts';
import { syncCertificates } from '../../src/certs/self-managed.ts';

const DAY = 86_400_000;
const at = (ms: number): Date => new Date(Date.UTC(2030, 0, 1) + ms);
const first = await planBundle(undefined, { hosts: ['127.0.0.1'], servingValidityMs: 30 * DAY, now: at(0) });
const rotated = await planBundle(first.bundle, { hosts: ['127.0.0.1'], servingValidityMs: 30 * DAY, now: at(250 * DAY) });
const b64 = (pem: string): string => Buffer.from(pem).toString('base64');

const service = { namespace: 'system', name: 'webhook', port: 443 };
const serviceGoal: CrdConversionGoal = { target: { service }, path: '/convert', caBundlePem: first.bundle.caBundle };
const urlGoal: CrdConversionGoal = { target: { urlBase: 'https://127.0.0.1:9443/' }, path: '/convert', caBundlePem: first.bundle.caBundle };
const ours = { service: { ...service, path: '/convert' } };
const ourUrl = { url: 'https://127.0.0.1:9443/convert' };
const webhook = (clientConfig: Record<string, unknown>): CrdConversionState => ({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig } });

describe('planCrdConversion', () => {
  it.each<[string, CrdConversionState | undefined, CrdConversionGoal, string, Record<string, unknown> | undefined]>([
    ['service mode: no stanza (strategy None) gets ours', { strategy: 'None' }, serviceGoal, 'write', ours],
    ["service mode: OpenKruise's service is replaced by ours", webhook({ service: { namespace: 'kruise-system', name: 'kruise-webhook-service', path: '/convert' } }), serviceGoal, 'write', ours],
    ['service mode: a URL is replaced by our service', webhook(ourUrl), serviceGoal, 'write', ours],
    ['service mode: ours without the caBundle gets it', webhook(ours), serviceGoal, 'write', ours],
    ['service mode: ours with our caBundle is left alone', webhook({ ...ours, caBundle: b64(first.bundle.caBundle) }), serviceGoal, 'none', undefined],
    ['URL mode: no stanza gets our URL', {}, urlGoal, 'write', ourUrl],
    ['URL mode: our URL with a caBundle that is not ours gets ours', webhook({ ...ourUrl, caBundle: b64('not a certificate') }), urlGoal, 'write', ourUrl],
    ["URL mode: another process's URL is left alone (the installer decides)", webhook({ url: 'https://127.0.0.1:1234/convert' }), urlGoal, 'served-elsewhere', undefined],
    ['URL mode: a service is left alone', webhook(ours), urlGoal, 'served-elsewhere', undefined],
  ])('%s', (_name, current, goal, action, endpoint) => {
    const plan = planCrdConversion(current, goal);
    expect(plan.action).toBe(action);
    if (plan.action === 'write') {
      expect(plan.conversion).toEqual({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { ...endpoint, caBundle: b64(first.bundle.caBundle) } } });
    }
  });

  it('does not write an older caBundle over a newer one, unless told the read is current', () => {
    const current = webhook({ ...ours, caBundle: b64(rotated.bundle.caBundle) });
    expect(planCrdConversion(current, serviceGoal)).toEqual({ action: 'newer-present' });
    expect(planCrdConversion(current, { ...serviceGoal, overwriteNewer: true }).action).toBe('write');
  });

  it('treats an unset service port as 443 and an unset path as /', () => {
    expect(planCrdConversion(webhook({ service: { namespace: 'system', name: 'webhook', path: '/convert' }, caBundle: b64(first.bundle.caBundle) }), serviceGoal).action).toBe('none');
    expect(planCrdConversion(webhook({ service: { namespace: 'system', name: 'webhook' }, caBundle: b64(first.bundle.caBundle) }), serviceGoal).action).toBe('write');
  });
});

/** One CRD (or none); a patch applies the JSON patch after its test op; `conflicts` patches answer 409 first. */
function fakeCrdApi(conversion: CrdConversionState | undefined, conflicts = 0, extra: { versions?: { name: string }[]; storedVersions?: string[]; annotations?: Record<string, string> } = {}) {
  type Crd = { metadata: { name: string; resourceVersion: string; annotations?: Record<string, string> }; spec: { conversion: CrdConversionState; versions: { name: string }[] }; status: { storedVersions: string[] } };
  let crd: Crd | undefined = conversion === undefined
    ? undefined
    : {
        metadata: { name: 'clonesets.apps.kruise.io', resourceVersion: '1', ...(extra.annotations ? { annotations: extra.annotations } : {}) },
        spec: { conversion, versions: extra.versions ?? [{ name: 'v1alpha1' }] },
        status: { storedVersions: extra.storedVersions ?? ['v1alpha1'] },
      };
  const writes: string[] = [];
  const client = {
    resource: (gvr: { resource: string }) => ({
      get: (_ns: string | undefined, name: string) => {
        if (gvr.resource === 'customresourcedefinitions' && crd && name === crd.metadata.name) return Promise.resolve(structuredClone(crd));
        return Promise.reject(new NotFoundError(404, 'NotFound', 'not found', undefined, 'GET'));
      },
      patch: (_ns: string | undefined, _name: string, patch: { body: { op: 'add' | 'remove' | 'replace' | 'test'; path: string; value: unknown }[] }) => {
        writes.push(gvr.resource);
        if (conflicts-- > 0) return Promise.reject(new ConflictError(409, 'Conflict', 'conflict', undefined, 'PATCH'));
        const [test, ...ops] = patch.body;
        expect(test).toEqual({ op: 'test', path: '/metadata/resourceVersion', value: crd!.metadata.resourceVersion });
        const next = applyJsonPatch(crd, ops as never) as Crd;
        crd = { ...next, metadata: { ...next.metadata, resourceVersion: String(Number(crd!.metadata.resourceVersion) + 1) } };
        return Promise.resolve(crd);
      },
      create: () => Promise.resolve({}),
      replace: (o: unknown) => Promise.resolve(o),
    }),
  } as unknown as KubeClient;
  return { client, writes, conversion: () => crd?.spec.conversion, crd: () => crd };
}

describe('ensureCrdConversions', () => {
  it('writes the plan guarded by the resourceVersion, reading again after a conflict', async () => {
    const api = fakeCrdApi({ strategy: 'None' }, 1);
    await ensureCrdConversions(api.client, [{ name: 'clonesets.apps.kruise.io' }], { ...serviceGoal, optIn: false }, silentLogger());
    expect(api.writes).toEqual(['customresourcedefinitions', 'customresourcedefinitions']);
    expect(api.conversion()?.webhook?.clientConfig).toEqual({ ...ours, caBundle: b64(first.bundle.caBundle) });
  });

  it('is not bothered by a CRD that is not installed', async () => {
    const api = fakeCrdApi(undefined);
    await expect(ensureCrdConversions(api.client, [{ name: 'clonesets.apps.kruise.io' }], { ...serviceGoal, optIn: false }, silentLogger())).resolves.toEqual({ newerPresent: false, notices: [] });
    expect(api.writes).toEqual([]);
  });
});

describe('self-managed certificates and the CRD', () => {
  it('the CRD trusts the CA before the server is given its certificate', async () => {
    const api = fakeCrdApi({ strategy: 'None' });
    const secrets = new Map<string, unknown>();
    const base = api.client.resource.bind(api.client);
    const client = {
      resource: (gvr: { resource: string }) => {
        if (gvr.resource !== 'secrets') return base(gvr as never);
        return {
          get: (_ns: string, name: string) => (secrets.has(name) ? Promise.resolve(structuredClone(secrets.get(name))) : Promise.reject(new NotFoundError(404, 'NotFound', 'nf', undefined, 'GET'))),
          create: (o: { metadata: { name: string } }) => (secrets.set(o.metadata.name, { ...o, metadata: { ...o.metadata, resourceVersion: '1' } }), Promise.resolve(o)),
          replace: (o: { metadata: { name: string } }) => (secrets.set(o.metadata.name, o), Promise.resolve(o)),
        };
      },
    } as unknown as KubeClient;
    let trustedWhenServed: unknown;
    await syncCertificates({
      client,
      namespace: 'system',
      secretName: 'certs',
      configurationName: 'cfg',
      hosts: ['127.0.0.1'],
      servingValidityMs: 30 * DAY,
      logger: silentLogger(),
      conversions: { target: { service }, webhooks: [{ name: 'clonesets.apps.kruise.io', path: '/convert' }], optIn: false },
      onCertificate: () => {
        trustedWhenServed = api.conversion()?.webhook?.clientConfig?.caBundle;
        return Promise.resolve();
      },
    });
    expect(trustedWhenServed).toBeDefined();
    expect(Buffer.from(String(trustedWhenServed), 'base64').toString()).toContain('BEGIN CERTIFICATE');
  });
});
