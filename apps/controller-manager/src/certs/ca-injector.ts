// Keeps clientConfig.caBundle of every webhook in the named Mutating- and
// ValidatingWebhookConfiguration trusting our CA set (merged with the still-valid CAs already
// there, so an older read never undoes a newer rotation). A missing configuration is not an
// error (it may be installed later); writes are JSON patches guarded by the read resourceVersion.
import { mergeCaBundles } from './ca-bundle-merge.ts';
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

/** Injects `caBundlePem` (merged with what each webhook trusts); resolves to the number of configurations it changed. */
export async function injectCaBundle(client: KubeClient, name: string, caBundlePem: string, logger: Logger, now: Date = new Date()): Promise<number> {
  let changed = 0;
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
      const ops = (current.webhooks ?? []).flatMap((w, i) => {
        const caBundle = Buffer.from(mergeCaBundles(caBundlePem, decode(w.clientConfig?.caBundle), now)).toString('base64');
        return w.clientConfig?.caBundle === caBundle ? [] : [{ op: 'add' as const, path: `/webhooks/${i}/clientConfig/caBundle`, value: caBundle }];
      });
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
  return changed;
}
