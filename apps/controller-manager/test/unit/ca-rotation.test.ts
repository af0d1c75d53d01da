// After a CA rotation, no replica serves a certificate the apiserver does not
// trust yet, and no replica replaces a newer caBundle with the one from an older read.
import { NotFoundError, silentLogger, type KubeClient, type KubeObject } from '@cloneset-suite/kube-runtime';
import { describe, expect, it } from 'vitest';
import { planBundle } from '../../src/certs/bundle.ts';
import { isOlderCaBundle } from '../../src/certs/ca-bundle-age.ts';
import { injectCaBundle } from '../../src/certs/ca-injector.ts';
import { syncCertificates, type SelfManagedOptions } from '../../src/certs/self-managed.ts';
import { splitPemBundle, X509Certificate } from '../../src/certs/x509.ts';

const DAY = 86_400_000;
const hosts = ['127.0.0.1'];
const at = (ms: number): Date => new Date(Date.UTC(2030, 0, 1) + ms);
const first = await planBundle(undefined, { hosts, servingValidityMs: 30 * DAY, now: at(0) });
const rotated = await planBundle(first.bundle, { hosts, servingValidityMs: 30 * DAY, now: at(250 * DAY) });
const b64 = (pem: string): string => Buffer.from(pem).toString('base64');
const fingerprints = (pem: string): string[] => splitPemBundle(pem).map((p) => new X509Certificate(p).fingerprint256).sort();

/** An apiserver holding one Secret and the two webhook configurations; logs every write in order. */
function fakeApi(initialCaBundle: string) {
  const log: string[] = [];
  const objects = new Map<string, KubeObject & Record<string, unknown>>();
  for (const kind of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
    objects.set(`${kind}/cfg`, { metadata: { name: 'cfg', resourceVersion: '1' }, webhooks: [{ name: 'a', clientConfig: { caBundle: b64(initialCaBundle) } }] });
  }
  const client = {
    resource: (gvr: { resource: string }) => ({
      get: (_ns: string | undefined, name: string) => {
        const o = objects.get(`${gvr.resource}/${name}`);
        return o ? Promise.resolve(structuredClone(o)) : Promise.reject(new NotFoundError(404, 'NotFound', 'not found', undefined, 'GET'));
      },
      create: (o: KubeObject) => {
        objects.set(`${gvr.resource}/${o.metadata?.name}`, { ...o, metadata: { ...o.metadata, resourceVersion: '1' } });
        log.push(`create ${gvr.resource}`);
        return Promise.resolve(o);
      },
      replace: (o: KubeObject & Record<string, unknown>) => {
        objects.set(`${gvr.resource}/${o.metadata?.name}`, o);
        log.push(`replace ${gvr.resource}`);
        return Promise.resolve(o);
      },
      patch: (_ns: string | undefined, name: string, patch: { body: { op: string; path: string; value?: string }[] }) => {
        const body = patch.body;
        const o = objects.get(`${gvr.resource}/${name}`)!;
        for (const op of body.filter((x) => x.op === 'add')) {
          const i = Number(op.path.split('/')[2]);
          (o.webhooks as { clientConfig: { caBundle?: string } }[])[i]!.clientConfig.caBundle = op.value;
        }
        log.push(`patch ${gvr.resource}`);
        return Promise.resolve(o);
      },
    }),
  } as unknown as KubeClient;
  const caBundleOf = (kind: string): string => Buffer.from(((objects.get(`${kind}/cfg`)!.webhooks as { clientConfig: { caBundle: string } }[])[0]!.clientConfig.caBundle), 'base64').toString();
  return { client, log, caBundleOf };
}

function syncOptions(client: KubeClient, now: Date, onCertificate: SelfManagedOptions['onCertificate']): SelfManagedOptions {
  return { client, namespace: 'system', secretName: 'certs', configurationName: 'cfg', hosts, servingValidityMs: 30 * DAY, logger: silentLogger(), now: () => now, onCertificate };
}

describe('caBundle injection after a CA rotation', () => {
  it('orders bundles by their most recently issued CA', () => {
    expect(isOlderCaBundle(first.bundle.caBundle, rotated.bundle.caBundle)).toBe(true);
    expect(isOlderCaBundle(rotated.bundle.caBundle, first.bundle.caBundle)).toBe(false);
    expect(isOlderCaBundle(rotated.bundle.caBundle, rotated.bundle.caBundle)).toBe(false);
    expect(isOlderCaBundle(first.bundle.caBundle, 'garbage')).toBe(false);
  });

  it('an older replica injecting after a newer one leaves the newer caBundle in place', async () => {
    const api = fakeApi(rotated.bundle.caBundle);
    const res = await injectCaBundle(api.client, 'cfg', first.bundle.caBundle, silentLogger());
    expect(res).toEqual({ changed: 0, newerPresent: true });
    expect(fingerprints(api.caBundleOf('validatingwebhookconfigurations'))).toEqual(fingerprints(rotated.bundle.caBundle));
    expect(fingerprints(api.caBundleOf('mutatingwebhookconfigurations'))).toEqual(fingerprints(rotated.bundle.caBundle));
  });

  it('a Secret read twice at the same version is the truth, even over a newer caBundle', async () => {
    const api = fakeApi(rotated.bundle.caBundle);
    const served: string[] = [];
    // The Secret holds the older (still valid, not yet due) bundle: restored from a backup.
    await api.client.resource({ resource: 'secrets' } as never).create({
      metadata: { name: 'certs', namespace: 'system' },
      data: { 'ca.crt': b64(first.bundle.caCert), 'ca.key': b64(first.bundle.caKey), 'tls.crt': b64(first.bundle.tlsCert), 'tls.key': b64(first.bundle.tlsKey), 'ca-bundle.crt': b64(first.bundle.caBundle) },
    } as KubeObject);
    await syncCertificates(
      syncOptions(api.client, at(DAY), (c) => {
        served.push(c.cert);
        return Promise.resolve();
      }),
    );
    expect(served).toEqual([first.bundle.tlsCert]);
    expect(fingerprints(api.caBundleOf('validatingwebhookconfigurations'))).toEqual(fingerprints(first.bundle.caBundle));
  });

  it('serves the rotated certificate only after its CA is in both configurations', async () => {
    const api = fakeApi(first.bundle.caBundle);
    await syncCertificates(
      syncOptions(api.client, at(250 * DAY), (c) => {
        api.log.push('serve');
        const issuer = new X509Certificate(c.cert).issuer;
        for (const kind of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
          expect(splitPemBundle(api.caBundleOf(kind)).some((pem) => new X509Certificate(pem).subject === issuer)).toBe(true);
        }
        return Promise.resolve();
      }),
    );
    expect(api.log.indexOf('serve')).toBeGreaterThan(api.log.lastIndexOf('patch validatingwebhookconfigurations'));
  });
});
