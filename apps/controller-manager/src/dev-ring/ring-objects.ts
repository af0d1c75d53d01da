// What a local ring of shards needs besides the managers: the ControllerRing naming what the
// manager shards (README, "Scaling out: a ring of shards"), and the sharder's configuration with
// its webhook in URL mode on loopback, as the manager's own webhooks run on the local cluster.
// Both are plain data, so a table test reads them.

/** The ring every shard of `npm start -- --shards=N` joins. */
export const LOCAL_RING = 'cloneset-suite';

/** The ControllerRing of the manager's sharded resources, optionally limited to some namespaces. */
export function controllerRing(name: string, namespaces?: readonly string[]): Record<string, unknown> {
  return {
    apiVersion: 'sharding.timebertt.dev/v1alpha1',
    kind: 'ControllerRing',
    metadata: { name },
    spec: {
      resources: [
        {
          group: 'apps.kruise.io',
          resource: 'clonesets',
          // Pods, their PVCs and the CloneSet's revisions move with it: a shard plans from all of them.
          controlledResources: [{ group: '', resource: 'pods' }, { group: '', resource: 'persistentvolumeclaims' }, { group: 'apps', resource: 'controllerrevisions' }],
        },
        // A rule's status spans every shard's pods: one shard writes it.
        { group: 'apps.kusionstack.io', resource: 'podtransitionrules' },
      ],
      namespaceSelector: namespaces && { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...namespaces] }] },
    },
  };
}

export interface SharderConfigOptions {
  /** Where the sharder's webhook server finds tls.crt and tls.key. */
  certDir: string;
  /** The CA that signed them, PEM: the apiserver's trust for the URL. */
  caPem: string;
  /** The port the sharder's webhook server listens on (controller-runtime's default, 9443). */
  webhookPort: number;
  healthPort: number;
  /** The sharder's client rate (its moves on a drain are writes like the shards'). */
  qps: number;
  burst: number;
}

/** The sharder's SharderConfig (config.sharding.timebertt.dev/v1alpha1), for its --config. */
export function sharderConfig(o: SharderConfigOptions): Record<string, unknown> {
  return {
    apiVersion: 'config.sharding.timebertt.dev/v1alpha1',
    kind: 'SharderConfig',
    clientConnection: { qps: o.qps, burst: o.burst },
    health: { bindAddress: `127.0.0.1:${o.healthPort}` },
    // "0" turns the metrics server off: it would take :8080, the manager's default metrics port.
    metrics: { bindAddress: '0' },
    webhook: {
      server: { certDir: o.certDir },
      // The sharder appends /webhooks/sharder/controllerring/<ring> to a URL.
      config: { clientConfig: { url: `https://127.0.0.1:${o.webhookPort}`, caBundle: Buffer.from(o.caPem).toString('base64') } },
    },
  };
}
