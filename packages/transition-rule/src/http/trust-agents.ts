// The HTTP agents of webhook calls, one per set of trusted roots (a rule's caBundle), kept in a
// small least-recently-used cache: a tenant rewriting its caBundles every round would otherwise
// leave an agent (and its TLS context, about 2.6 MiB) behind for each. Keyed by the bundle's
// SHA-256, not the bundle itself, and an evicted agent is closed (its calls in flight finish).
import { createHash } from 'node:crypto';
import type { Agent } from 'undici';

export const DEFAULT_MAX_TRUST_AGENTS = 32;

export class TrustAgents {
  private readonly agents = new Map<string, Agent>();
  private readonly max: number;
  private readonly create: (ca: string | undefined) => Agent;

  constructor(create: (ca: string | undefined) => Agent, max = DEFAULT_MAX_TRUST_AGENTS) {
    this.create = create;
    this.max = Math.max(1, max);
  }

  get size(): number {
    return this.agents.size;
  }

  /** The agent trusting `ca` (PEM; the system roots when undefined), made or moved to the front. */
  get(ca: string | undefined): Agent {
    const key = ca === undefined ? '' : createHash('sha256').update(ca).digest('hex');
    let agent = this.agents.get(key);
    if (agent) this.agents.delete(key);
    else agent = this.create(ca);
    this.agents.set(key, agent);
    for (const [oldest, evicted] of this.agents) {
      if (this.agents.size <= this.max) break;
      this.agents.delete(oldest);
      void evicted.close().catch(() => undefined);
    }
    return agent;
  }

  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.allSettled(agents.map((a) => a.close()));
  }
}
