// The runtime's ring mode: the shard's Lease carries its ring's label (created so, or added when
// taken over), the caches of ring resources list and watch through the shard selector, and a
// controller's owned object leaving that view holds its owner instead of counting as deleted.
import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/client.ts';
import { Resources } from '../../src/client/gvr.ts';
import type { KubeObject, OwnerReference } from '../../src/client/types.ts';
import { done } from '../../src/controller/action.ts';
import { ControllerBuilder, type ControllerHost } from '../../src/controller/builder.ts';
import type { EventRecorder } from '../../src/events.ts';
import type { ScaleExpectations } from '../../src/expectations.ts';
import { InformerFactory } from '../../src/informer/factory.ts';
import { LeaderElector } from '../../src/leader-election.ts';
import { silentLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.ts';
import { FakeSource } from '../support/fake-source.ts';
import { FakeTransport, LiveStream } from '../support/fake-transport.ts';
import { LeaseServer } from '../support/lease-server.ts';

const RING_LABEL = { 'alpha.sharding.timebertt.dev/controllerring': 'ring-a' };

async function tick(clock: FakeClock, ms: number, step = 100): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await clock.advance(step);
    await new Promise((r) => setImmediate(r));
    await flushMicrotasks();
  }
}

describe('shard Lease', () => {
  async function leadOnce(server: LeaseServer): Promise<void> {
    const clock = new FakeClock(1_700_000_000_000);
    const ac = new AbortController();
    const elector = new LeaderElector({
      client: new KubeClient({ transport: new FakeTransport((req) => server.handle(req)), clock, qps: 0 }),
      namespace: 'sys',
      name: 'shard-0',
      identity: 'shard-0',
      labels: RING_LABEL,
      clock,
      random: () => 0.5,
      onStartedLeading: () => undefined,
    });
    const run = elector.run(ac.signal);
    await tick(clock, 500);
    expect(elector.isLeader()).toBe(true);
    ac.abort();
    await tick(clock, 200);
    await run;
  }

  it('is created with the ring label', async () => {
    const server = new LeaseServer();
    await leadOnce(server);
    expect(server.lease?.metadata?.labels).toEqual(RING_LABEL);
    expect(server.lease?.metadata?.name).toBe('shard-0');
  });

  it('gets the label when it is taken over from a Lease without it, keeping its other labels', async () => {
    const server = new LeaseServer();
    server.lease = { metadata: { name: 'shard-0', namespace: 'sys', resourceVersion: '1', labels: { team: 'x' } }, spec: { holderIdentity: '', leaseDurationSeconds: 1 } };
    await leadOnce(server);
    expect(server.lease?.metadata?.labels).toEqual({ team: 'x', ...RING_LABEL });
  });
});

describe('shard-scoped caches', () => {
  function factoryWith(shard: boolean) {
    const clock = new FakeClock();
    const transport = new FakeTransport((req) => (req.query?.watch ? { stream: new LiveStream(req.signal) } : { body: { metadata: { resourceVersion: '1' }, items: [] } }));
    const factory = new InformerFactory({
      client: new KubeClient({ transport, clock, qps: 0 }),
      clock,
      ...(shard ? { shardScope: { labelSelector: 'shard.alpha.sharding.timebertt.dev/ring-a=shard-0', resources: [{ group: '', resource: 'pods' }] } } : {}),
    });
    return { clock, transport, factory };
  }
  const selectorsOf = (t: FakeTransport, path: string) => [...new Set(t.requests.filter((r) => r.path.endsWith(path)).map((r) => r.query?.labelSelector))];

  it('lists and watches ring resources through the shard selector, joined to the caller\'s; others and acrossShards callers unfiltered', async () => {
    const { clock, transport, factory } = factoryWith(true);
    const sharded = factory.informerFor<KubeObject>(Resources.pods, { namespace: 'ns', labelSelector: 'app=web' });
    const across = factory.informerFor<KubeObject>(Resources.pods, { namespace: 'ns', labelSelector: 'app=web', acrossShards: true });
    expect(across).not.toBe(sharded);
    factory.informerFor<KubeObject>(Resources.services, { namespace: 'ns' });
    const ac = new AbortController();
    factory.start(ac.signal);
    await tick(clock, 100);
    expect(selectorsOf(transport, '/pods').sort()).toEqual(['app=web', 'app=web,shard.alpha.sharding.timebertt.dev/ring-a=shard-0']);
    expect(selectorsOf(transport, '/services')).toEqual([undefined]);
    ac.abort();
  });

  it('without a ring, acrossShards asks for the same cache', () => {
    const { factory } = factoryWith(false);
    expect(factory.informerFor<KubeObject>(Resources.pods, { namespace: 'ns', acrossShards: true })).toBe(factory.informerFor<KubeObject>(Resources.pods, { namespace: 'ns' }));
  });
});

describe('owned objects leaving a shard\'s view', () => {
  const OWNER = { group: 'apps.kruise.io', kind: 'CloneSet' };
  const ownerRef: OwnerReference = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid: 'u-web', controller: true };
  const pod = (name: string, extra: Partial<NonNullable<KubeObject['metadata']>> = {}): KubeObject => ({ metadata: { name, namespace: 'ns', ownerReferences: [ownerRef], ...extra } });

  function declare(ring: boolean) {
    const clock = new FakeClock();
    const logger = silentLogger();
    const host: ControllerHost = {
      clock,
      logger,
      metrics: createMetrics(),
      controllerDefaults: () => ({ clock, logger, reconcileTimeoutMs: 0 }),
      eventRecorder: () => ({}) as unknown as EventRecorder,
      clearsAtShutdown: () => undefined,
      add: () => undefined,
      ...(ring ? { ring: { ring: 'ring-a', shard: 'shard-0' } } : {}),
    };
    const [cloneSets, pods] = [new FakeSource<KubeObject>(), new FakeSource<KubeObject>()];
    let expectations: ScaleExpectations | undefined;
    new ControllerBuilder(host, 'demo')
      .for(cloneSets, { groupKind: OWNER })
      .owns(pods, { expectations: (p) => p.metadata?.name })
      .complete((c) => {
        expectations = c.expectations;
        return () => Promise.resolve(done());
      });
    return { cloneSets, pods, expectations: expectations! };
  }

  it('on a shard, a pod gone without a deletion mark holds its owner until it is seen again', () => {
    const { pods, expectations } = declare(true);
    pods.delete(pod('web-1'));
    expect(expectations.satisfied('ns/web')).toBe(false);
    expect(expectations.pending('ns/web')).toEqual({ create: ['web-1'], delete: [] });
    pods.add(pod('web-1'));
    expect(expectations.satisfied('ns/web')).toBe(true);
  });

  it('on a shard, the hold ends when the owner itself leaves', () => {
    const { cloneSets, pods, expectations } = declare(true);
    pods.delete(pod('web-1'));
    cloneSets.delete({ metadata: { name: 'web', namespace: 'ns' } });
    expect(expectations.satisfied('ns/web')).toBe(true);
  });

  it('on a shard, a marked pod\'s delete and a delete the owner asked for are deletes', () => {
    const { pods, expectations } = declare(true);
    pods.delete(pod('web-1', { deletionTimestamp: '2026-01-01T00:00:00Z' }));
    expectations.expect('ns/web', 'delete', 'web-2');
    pods.delete(pod('web-2'));
    expect(expectations.satisfied('ns/web')).toBe(true);
  });

  it('without a ring, a delete is a delete', () => {
    const { pods, expectations } = declare(false);
    pods.delete(pod('web-1'));
    expect(expectations.satisfied('ns/web')).toBe(true);
  });
});
