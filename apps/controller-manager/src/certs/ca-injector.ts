// Keeps clientConfig.caBundle of every webhook in the named Mutating- and
// ValidatingWebhookConfiguration equal to the trusted CA set. A missing configuration is not an
// error (it may be installed later); writes are JSON patches guarded by the read resourceVersion.
// A bundle older than the one injected (a replica acting on an older read of the Secret) is not
// written unless the caller says its read is current: it would undo a newer rotation.
import { isOlderCaBundle } from './ca-bundle-age.ts';
import { isConflict, isInvalid, isNotFound, jsonPatch, type GroupVersionResource, type KubeClient, type KubeObject, type Logger } from '@cloneset-suite/kube-runtime';

export const WebhookConfigurationResources = {
  mutating: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
  },
  validating: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
  },
} as const satisfies Record<string, GroupVersionResource>;

interface Configuration extends KubeObject {
  webhooks?: { name: string; clientConfig?: { caBundle?: string } }[];
}

const decode = (b64: string | undefined): string => Buffer.from(b64 ?? '', 'base64').toString('utf8');

export interface InjectResult {
  /** Configurations written. */
  changed: number;
  /** A configuration already trusts a newer CA than ours; nothing older was written over it. */
  newerPresent: boolean;
}

export interface InjectOptions {
  /** Write even over a newer bundle (the caller re-read the Secret and it still holds ours). */
  overwriteNewer?: boolean;
}

/** Injects `caBundlePem` into every webhook of both configurations. */
export async function injectCaBundle(client: KubeClient, name: string, caBundlePem: string, logger: Logger, options: InjectOptions = {}): Promise<InjectResult> {
  const caBundle = Buffer.from(caBundlePem).toString('base64');
  let changed = 0;
  let newerPresent = false;
  for (const gvr of Object.values(WebhookConfigurationResources)) {
    const api = client.resource<Configuration>(gvr);
    for (let attempt = 0; attempt < 5; attempt++) {
      let current: Configuration;
      try {
        current = await api.get(undefined, name);
      } catch (err) {
        if (isNotFound(err)) {
          logger.debug({ kind: gvr.kind, name }, 'webhook configuration not found; nothing to inject');
          break;
        }
        throw err;
      }
      if (!options.overwriteNewer && (current.webhooks ?? []).some((w) => isOlderCaBundle(caBundlePem, decode(w.clientConfig?.caBundle)))) {
        logger.info({ kind: gvr.kind, name }, 'the configuration trusts a newer CA than our read of the Secret; not overwriting it');
        newerPresent = true;
        break;
      }
      const ops = (current.webhooks ?? []).flatMap((w, i) =>
        w.clientConfig?.caBundle === caBundle ? [] : [{ op: 'add' as const, path: `/webhooks/${i}/clientConfig/caBundle`, value: caBundle }],
      );
      if (ops.length === 0) break;
      try {
        await api.patch(undefined, name, jsonPatch(ops, { resourceVersion: current.metadata?.resourceVersion ?? '' }));
        changed++;
        logger.info({ kind: gvr.kind, name, webhooks: ops.length }, 'injected caBundle');
        break;
      } catch (err) {
        // A failed test op answers 422 on some servers, 409 on others: read again either way.
        if (!isConflict(err) && !isInvalid(err)) throw err;
        if (attempt === 4) throw err;
      }
    }
  }
  return { changed, newerPresent };
}
