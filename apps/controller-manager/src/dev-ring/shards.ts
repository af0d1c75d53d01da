// The managers of a local ring: shard-0..N-1, each its own process on its own loopback ports,
// their webhooks behind one front port, started again a second after exiting on their own.
import { freePort, repoRoot } from '@cloneset-suite/local-cluster';
import { MANAGER_MAIN, localManagerArgs } from '../local-manager-args.ts';
import { SupervisedProcess } from './supervised-process.ts';

export interface ShardPorts {
  webhook: number;
  metrics: number;
  health: number;
}

export interface RingPorts {
  /** The one address the apiserver calls for every shard's admission. */
  front: number;
  shards: ShardPorts[];
}

/** One shard's own ports (a shard added to a running ring takes these). */
export const portsForShard = async (): Promise<ShardPorts> => ({ webhook: await freePort(), metrics: await freePort(), health: await freePort() });

export async function shardPorts(shards: number): Promise<RingPorts> {
  const front = await freePort();
  return { front, shards: await Promise.all(Array.from({ length: shards }, portsForShard)) };
}

export interface ShardsOptions {
  ring: string;
  kubeconfig: string;
  leaseNamespace: string;
  ports: RingPorts;
  /** The one namespace every shard watches (all when undefined). */
  namespace?: string | undefined;
  extraArgs?: readonly string[];
  /** The first shard's index (a shard added to a running ring continues the count). */
  from?: number;
  say?: (line: string) => void;
  /** Each output line of a shard (default: stderr, prefixed with its name). */
  line?: (shard: string, line: string) => void;
}

export const shardName = (i: number): string => `shard-${i}`;

/** One supervised manager per port set, started. */
export function startShards(o: ShardsOptions): SupervisedProcess[] {
  return o.ports.shards.map((ports, k) => {
    const name = shardName((o.from ?? 0) + k);
    const args = localManagerArgs({
      kubeconfig: o.kubeconfig,
      leaseNamespace: o.leaseNamespace,
      namespace: o.namespace,
      ports,
      webhookUrlPort: o.ports.front,
      ring: { ring: o.ring, shard: name },
      extraArgs: o.extraArgs,
    });
    const line = o.line;
    return new SupervisedProcess({
      name,
      command: process.execPath,
      args: [MANAGER_MAIN, ...args],
      cwd: repoRoot,
      line: line && ((l) => line(name, l)),
      onExit: (code, signal) => o.say?.(`${name} exited (${signal ?? `code ${code}`}); starting it again in 1 s`),
    }).start();
  });
}
