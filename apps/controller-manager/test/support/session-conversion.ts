// One CloneSet conversion webhook for a whole run of the cluster suites (the global setup starts
// it). With v1beta1 served, kubectl without a version speaks v1beta1 (the group's preferred
// version), and so do the namespace and garbage collectors: every suite that reads a CloneSet
// that way, with or without a manager of its own, needs a converter. The suites' managers leave
// the CRD pointing here (URL mode writes only a stanza that names its own URL); a suite that
// points it at its own manager points it back when it is done.
import path from 'node:path';
import { createLogger } from '@cloneset-suite/kube-runtime';
import { planBundle } from '../../src/certs/bundle.ts';
import { defaultConfig } from '../../src/config/flags.ts';
import { CLONESET_CRD_NAME, handBackCrdConversion, installCrds, pointCrdConversion, type Kubectl } from '../../src/local-install.ts';
import { WebhookServer, webhookServerLimits } from '../../src/server/webhook-server.ts';
import { CLONESET_CONVERSION_PATH } from '../../src/webhooks/cloneset-conversion.ts';
import { conversionWebhooks } from '../../src/webhooks/index.ts';

export interface SessionConversion {
  /** The CRD's clientConfig while this webhook converts (for suites that point it elsewhere and back). */
  clientConfig: { url: string; caBundle: string };
  stop(): Promise<void>;
}

export async function startSessionConversion(kubectl: Kubectl, repoRoot: string): Promise<SessionConversion> {
  const { bundle } = await planBundle(undefined, { hosts: ['127.0.0.1'], servingValidityMs: 7 * 86_400_000, now: new Date() });
  const server = new WebhookServer({
    host: '127.0.0.1',
    port: 0,
    webhooks: [],
    conversions: conversionWebhooks(),
    requestTimeoutMs: 10_000,
    maxBodyBytes: 64 * 1024 * 1024,
    limits: webhookServerLimits(defaultConfig()),
    logger: createLogger({ level: 'warn', base: { component: 'test-session-conversion' } }),
  });
  await server.setCertificate({ cert: bundle.tlsCert, key: bundle.tlsKey });
  const clientConfig = { url: `https://127.0.0.1:${server.port()}${CLONESET_CONVERSION_PATH}`, caBundle: Buffer.from(bundle.caBundle).toString('base64') };
  await installCrds(kubectl, path.join(repoRoot, 'crds'));
  await pointCrdConversion(kubectl, CLONESET_CRD_NAME, clientConfig);
  return {
    clientConfig,
    // No webhook behind a URL once the run is over: a dead one would hold every namespace
    // deletion (the namespace collector lists through v1beta1). `npm start` points it again.
    stop: async () => {
      await handBackCrdConversion(kubectl, CLONESET_CRD_NAME, clientConfig.url, { strategy: 'None' }, { restoreNone: true }).catch(() => undefined);
      await server.close();
    },
  };
}
