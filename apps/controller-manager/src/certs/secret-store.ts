// Keeps the self-managed bundle in a kubernetes.io/tls Secret shared by every replica. Writes
// are conditional (create, or update at the read resourceVersion): when two replicas race, one
// wins and the other adopts what was stored.
import { Resources, isAlreadyExists, isConflict, isNotFound, type KubeClient, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { CertBundle } from './bundle.ts';

interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

const KEYS = { caCert: 'ca.crt', caKey: 'ca.key', tlsCert: 'tls.crt', tlsKey: 'tls.key', caBundle: 'ca-bundle.crt' } as const;

export interface StoredBundle {
  bundle: Partial<CertBundle> | undefined;
  /** Absent when the Secret does not exist. */
  resourceVersion: string | undefined;
}

function decode(secret: Secret): Partial<CertBundle> {
  const out: Partial<CertBundle> = {};
  for (const [field, key] of Object.entries(KEYS) as [keyof CertBundle, string][]) {
    const v = secret.data?.[key];
    if (v) out[field] = Buffer.from(v, 'base64').toString('utf8');
  }
  return out;
}

function encode(bundle: CertBundle): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [field, key] of Object.entries(KEYS) as [keyof CertBundle, string][]) data[key] = Buffer.from(bundle[field]).toString('base64');
  return data;
}

export class SecretStore {
  private readonly client: KubeClient;
  private readonly namespace: string;
  private readonly name: string;

  constructor(client: KubeClient, namespace: string, name: string) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
  }

  async read(signal?: AbortSignal): Promise<StoredBundle> {
    try {
      const s = await this.client.resource<Secret>(Resources.secrets).get(this.namespace, this.name, signal ? { signal } : {});
      return { bundle: decode(s), resourceVersion: s.metadata?.resourceVersion };
    } catch (err) {
      if (isNotFound(err)) return { bundle: undefined, resourceVersion: undefined };
      throw err;
    }
  }

  /** Writes the bundle; false when another writer got there first (read again). */
  async write(bundle: CertBundle, resourceVersion: string | undefined): Promise<boolean> {
    const secrets = this.client.resource<Secret>(Resources.secrets);
    const secret: Secret = {
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: { 'app.kubernetes.io/name': 'cloneset-suite', 'app.kubernetes.io/component': 'webhook-certificates' },
        ...(resourceVersion ? { resourceVersion } : {}),
      },
      type: 'kubernetes.io/tls',
      data: encode(bundle),
    };
    try {
      if (resourceVersion) await secrets.replace(secret);
      else await secrets.create(secret);
      return true;
    } catch (err) {
      if (isConflict(err) || isAlreadyExists(err)) return false;
      throw err;
    }
  }
}
