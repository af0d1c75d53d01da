// The command line of a controller-manager run as its own process on loopback beside a local
// cluster: its probes, metrics and webhook on ports of its own, its admission reached through a
// URL (its own port, or one front for several replicas, as the chart's Service is one for every
// pod). `npm start -- --shards=N`, the chaos suites and the bench's sharding scenario start their
// managers with it, so each runs the manager exactly as the others do.
import { fileURLToPath } from 'node:url';
import type { RingMembership } from '@cloneset-suite/kube-runtime';

/** The manager's entry point, run by node. */
export const MANAGER_MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

export interface LocalManagerOptions {
  kubeconfig: string;
  /** Where its Lease lives. */
  leaseNamespace: string;
  /** The one namespace it watches ('' or undefined: every namespace). */
  namespace?: string | undefined;
  /** This process's own ports, on 127.0.0.1. */
  ports: { webhook: number; metrics: number; health: number };
  /** The port the apiserver calls for admission: this process's webhook port, or a front before several. */
  webhookUrlPort: number;
  /** Lease, webhook configuration and Secret name; the manager's defaults when undefined. */
  name?: string | undefined;
  /** A shard of this ring (its Lease is then named after the shard). */
  ring?: RingMembership | undefined;
  /** Lease timings shorter than the shipped ones, for failover tests: `6s`, `4s`, `1s`. */
  lease?: { duration: string; renewDeadline: string; retryPeriod: string } | undefined;
  gracefulShutdownTimeout?: string | undefined;
  /** Any other flags, last (so they win). */
  extraArgs?: readonly string[] | undefined;
}

export function localManagerArgs(o: LocalManagerOptions): string[] {
  const args = [
    `--kubeconfig=${o.kubeconfig}`,
    `--leader-election-namespace=${o.leaseNamespace}`,
    `--metrics-bind-address=127.0.0.1:${o.ports.metrics}`,
    `--health-probe-bind-address=127.0.0.1:${o.ports.health}`,
    '--webhook-host=127.0.0.1',
    `--webhook-port=${o.ports.webhook}`,
    `--webhook-url-base=https://127.0.0.1:${o.webhookUrlPort}`,
    // Rule servers of local runs listen on 127.0.0.1, refused to webhooks unless loopback is allowed.
    '--transition-rule-webhook-allow-addresses=loopback',
  ];
  if (o.namespace !== undefined) args.push(`--namespace=${o.namespace}`);
  if (o.name !== undefined) args.push(`--leader-election-id=${o.name}`, `--webhook-configuration-name=${o.name}`, `--webhook-secret-name=${o.name}-certs`);
  if (o.ring) args.push(`--controller-ring=${o.ring.ring}`, `--shard-name=${o.ring.shard}`);
  if (o.lease) args.push(`--leader-election-lease-duration=${o.lease.duration}`, `--leader-election-renew-deadline=${o.lease.renewDeadline}`, `--leader-election-retry-period=${o.lease.retryPeriod}`);
  if (o.gracefulShutdownTimeout !== undefined) args.push(`--graceful-shutdown-timeout=${o.gracefulShutdownTimeout}`);
  return [...args, ...(o.extraArgs ?? [])];
}
