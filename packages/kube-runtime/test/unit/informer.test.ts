import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/client.ts';
import { Resources } from '../../src/client/gvr.ts';
import type { HttpRequest } from '../../src/client/transport.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { InformerFactory } from '../../src/informer/factory.ts';
import { LISTED_OBJECTS_PER_TURN, RELIST_CHANGES_PER_TURN, SharedIndexInformer } from '../../src/informer/shared-informer.ts';
import { WATCH_EVENTS_PER_TURN } from '../../src/informer/reflector.ts';
import { keepIdentityAndLabels, stripManagedFields } from '../../src/informer/transform.ts';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.ts';
import { FakeTransport, LiveStream, status, type FakeAnswer } from '../support/fake-transport.ts';

const cm = (name: string, rv: string, data: Record<string, string> = {}): KubeObject & { data: Record<string, string> } => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv, uid: `uid-${name}` },
  data,
});

async function tick(clock: FakeClock, ms = 0): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setImmediate(r));
    await flushMicrotasks();
  }
  await clock.advance(ms);
}

/** Counts turns of the event loop: an immediate that schedules itself again runs once per turn, whatever the machine's speed. */
function countTurns(): { now: () => number; stop: () => void } {
  let turn = 0;
  let ticking = true;
  const tick = (): void => {
    turn++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turn, stop: () => void (ticking = false) };
}

/** Records every handler call as a compact string. */
function record(informer: SharedIndexInformer<KubeObject>) {
  const log: string[] = [];
  informer.addEventHandler({
    onAdd: (o, initial) => log.push(`add ${o.metadata?.name}@${o.metadata?.resourceVersion}${initial ? ' initial' : ''}`),
    onUpdate: (a, b) => log.push(`update ${b.metadata?.name}@${a.metadata?.resourceVersion}->${b.metadata?.resourceVersion}`),
    onDelete: (o, unknown) => log.push(`delete ${o.metadata?.name}@${o.metadata?.resourceVersion}${unknown ? ' unknown' : ''}`),
  });
  return log;
}

function setup(script: (req: HttpRequest, n: { lists: number; watches: number }) => FakeAnswer) {
  const clock = new FakeClock();
  const counts = { lists: 0, watches: 0 };
  const transport = new FakeTransport((req) => {
    if (req.query?.watch) counts.watches++;
    else counts.lists++;
    return script(req, counts);
  });
  const client = new KubeClient({ transport, clock, qps: 0 });
  const informer = new SharedIndexInformer<KubeObject>({ client: client.resource(Resources.configMaps), namespace: 'ns', clock });
  return { clock, transport, informer, counts };
}

describe('SharedIndexInformer + Reflector', () => {
  it('lists, watches from the list version with bookmarks, skips replays, and relists on a 410 event', async () => {
    const streams: LiveStream[] = [];
    const { clock, transport, informer } = setup((req, n) => {
      if (!req.query?.watch) {
        return n.lists === 1
          ? { body: { metadata: { resourceVersion: '10' }, items: [cm('a', '1'), cm('b', '2')] } }
          : { body: { metadata: { resourceVersion: '20' }, items: [cm('a', '12'), cm('d', '19')] } };
      }
      const s = new LiveStream(req.signal);
      streams.push(s);
      return { stream: s };
    });
    const log = record(informer);
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await informer.waitForSync();
    expect(informer.hasSynced()).toBe(true);
    await tick(clock);
    const watch1 = transport.requests[1]!;
    expect(watch1.query).toMatchObject({ watch: true, resourceVersion: '10', allowWatchBookmarks: true });
    expect(Number(watch1.query?.timeoutSeconds)).toBeGreaterThanOrEqual(300);

    const s1 = streams[0]!;
    s1.push({ type: 'ADDED', object: cm('c', '11') });
    s1.push({ type: 'MODIFIED', object: cm('a', '12') });
    s1.push({ type: 'MODIFIED', object: cm('a', '12') }); // replay: no event
    s1.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '15' } } });
    s1.push({ type: 'DELETED', object: cm('b', '16', { final: 'yes' }) });
    await tick(clock);
    expect(informer.lastSyncResourceVersion()).toBe('16');
    s1.end(); // server-side timeout: resume from 16 without listing
    await tick(clock);
    expect(transport.requests[2]!.query).toMatchObject({ watch: true, resourceVersion: '16' });

    streams[1]!.push({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } });
    await tick(clock);
    expect(transport.requests[3]!.query?.watch).toBeUndefined(); // relist
    await tick(clock);
    expect(transport.requests[4]!.query).toMatchObject({ watch: true, resourceVersion: '20' });

    expect(log).toEqual([
      'add a@1 initial',
      'add b@2 initial',
      'add c@11',
      'update a@1->12',
      'delete b@16',
      'add d@19',
      'delete c@11 unknown', // seen only through the relist: last known state
    ]);
    expect(informer.list().map((o) => o.metadata?.name).sort()).toEqual(['a', 'd']);
    const deleted = informer.get('ns', 'a');
    expect(Object.isFrozen(deleted)).toBe(true);
    expect(Object.isFrozen(deleted?.metadata)).toBe(true);
    ac.abort();
    await run;
  });

  it('reconnects after a failed watch with backoff, from the same resourceVersion', async () => {
    const { clock, transport, informer, counts } = setup((req, n) => {
      if (!req.query?.watch) return { body: { metadata: { resourceVersion: '5' }, items: [] } };
      if (n.watches <= 2) return status(500, 'InternalError', 'etcd is down');
      return { stream: new LiveStream(req.signal) };
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await tick(clock);
    expect(counts.watches).toBe(1);
    await tick(clock, 300);
    expect(counts.watches).toBe(1); // still backing off (>= 800 ms)
    await tick(clock, 1300);
    await tick(clock, 3300);
    expect(counts.watches).toBe(3);
    expect(counts.lists).toBe(1);
    expect(transport.requests.filter((r) => r.query?.watch).every((r) => r.query?.resourceVersion === '5')).toBe(true);
    ac.abort();
    await run;
  });

  it('relists when the watch request itself answers 410', async () => {
    const { clock, informer, counts } = setup((req, n) => {
      if (!req.query?.watch) return { body: { metadata: { resourceVersion: String(n.lists * 100) }, items: [] } };
      if (n.watches === 1) return status(410, 'Gone', 'too old');
      return { stream: new LiveStream(req.signal) };
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await tick(clock);
    await tick(clock);
    expect(counts.lists).toBe(2);
    expect(informer.lastSyncResourceVersion()).toBe('200');
    ac.abort();
    await run;
  });

  it('a 410 that keeps coming backs off instead of relisting in a hot loop', async () => {
    const { clock, informer, counts } = setup((req, n) => {
      if (!req.query?.watch) return { body: { metadata: { resourceVersion: String(n.lists) }, items: [] } };
      return status(410, 'Gone', 'too old');
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    for (let i = 0; i < 100; i++) await tick(clock, 100); // 10 s
    // Without backoff this relists on every turn (hundreds); with it, a few per 10 s.
    expect(counts.lists).toBeGreaterThan(1);
    expect(counts.lists).toBeLessThanOrEqual(8);
    ac.abort();
    await run;
  });

  it('a watch that goes silent is aborted by the watchdog and resumed', async () => {
    const { clock, informer, counts } = setup((req) => {
      if (!req.query?.watch) return { body: { metadata: { resourceVersion: '1' }, items: [] } };
      return { stream: new LiveStream(req.signal) };
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await tick(clock);
    expect(counts.watches).toBe(1);
    // kube-apiserver sends a bookmark every minute: 90 s of silence is a dead connection.
    await tick(clock, 89_000);
    expect(counts.watches).toBe(1);
    await tick(clock, 1_000);
    await tick(clock, 5_000);
    expect(counts.watches).toBe(2);
    expect(counts.lists).toBe(1); // resumed from the last resourceVersion, not relisted
    ac.abort();
    await run;
  });

  it('resync re-delivers cached objects as updates without listing; late handlers get the cache as adds', async () => {
    const clock = new FakeClock();
    let lists = 0;
    const transport = new FakeTransport((req) => {
      if (!req.query?.watch) {
        lists++;
        return { body: { metadata: { resourceVersion: '3' }, items: [cm('a', '1'), cm('b', '2')] } };
      }
      return { stream: new LiveStream(req.signal) };
    });
    const client = new KubeClient({ transport, clock, qps: 0 });
    const factory = new InformerFactory({ client, clock, defaultResyncMs: 10_000 });
    const informer = factory.informerFor<KubeObject>(Resources.configMaps, { namespace: 'ns' });
    expect(factory.informerFor(Resources.configMaps, { namespace: 'ns' })).toBe(informer);
    expect(factory.informerFor(Resources.configMaps)).not.toBe(informer);
    const log = record(informer);
    const ac = new AbortController();
    factory.start(ac.signal);
    await factory.waitForCacheSync();
    await tick(clock, 10_000);
    expect(log).toEqual(['add a@1 initial', 'add b@2 initial', 'update a@1->1', 'update b@2->2']);
    const late = record(informer);
    expect(late).toEqual(['add a@1 initial', 'add b@2 initial']);
    expect(lists).toBe(2); // one per informer, none for the resync
    ac.abort();
    await factory.stopped();
  });

  it('a throwing handler does not stop other handlers', async () => {
    const { clock, informer } = setup((req) =>
      req.query?.watch ? { stream: new LiveStream(req.signal) } : { body: { metadata: { resourceVersion: '1' }, items: [cm('a', '1')] } },
    );
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('handler bug');
      },
    });
    const log = record(informer);
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await tick(clock);
    expect(log).toEqual(['add a@1 initial']);
    ac.abort();
    await run;
  });

  it('caches objects without managedFields (listed and watched), keeping everything else', async () => {
    const managed = (name: string, rv: string): KubeObject => ({
      metadata: { name, namespace: 'ns', resourceVersion: rv, labels: { a: 'b' }, managedFields: [{ manager: 'kubectl', operation: 'Apply' }] },
    });
    let stream: LiveStream | undefined;
    const { clock, informer } = setup((req) => {
      if (!req.query?.watch) return { body: { metadata: { resourceVersion: '1' }, items: [managed('a', '1')] } };
      stream = new LiveStream(req.signal);
      return { stream };
    });
    const seen: unknown[] = [];
    informer.addEventHandler({ onAdd: (o) => seen.push(o.metadata), onUpdate: (_, o) => seen.push(o.metadata) });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await tick(clock);
    stream!.push({ type: 'MODIFIED', object: managed('a', '2') });
    await tick(clock);
    expect(informer.get('ns', 'a')?.metadata).toEqual({ name: 'a', namespace: 'ns', resourceVersion: '2', labels: { a: 'b' } });
    expect(seen).toEqual([
      { name: 'a', namespace: 'ns', resourceVersion: '1', labels: { a: 'b' } },
      { name: 'a', namespace: 'ns', resourceVersion: '2', labels: { a: 'b' } },
    ]);
    ac.abort();
    await run;
  });

  it('relists page by page: each page is cached-ready before the next is fetched, the cache changes only at the end, unchanged objects keep their instance and fire nothing', async () => {
    const clock = new FakeClock();
    let stream: LiveStream | undefined;
    let lists = 0;
    const transformed: string[] = [];
    const atSecondPage: { transformed: string[]; cache: string[] }[] = [];
    const cacheNow = (): string[] => informer.list().map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}`).sort();
    const transport = new FakeTransport((req) => {
      if (req.query?.watch) {
        stream = new LiveStream(req.signal);
        return { stream };
      }
      lists++;
      if (lists === 1) return { body: { metadata: { resourceVersion: '10' }, items: [cm('a', '1'), cm('b', '2'), cm('c', '3')] } };
      if (req.query?.continue === undefined) return { body: { metadata: { resourceVersion: '20', continue: 'page-2' }, items: [cm('a', '1'), cm('b', '15')] } };
      atSecondPage.push({ transformed: [...transformed], cache: cacheNow() });
      return { body: { metadata: { resourceVersion: '20' }, items: [cm('d', '16')] } };
    });
    const client = new KubeClient({ transport, clock, qps: 0 });
    const informer = new SharedIndexInformer<KubeObject>({
      client: client.resource(Resources.configMaps),
      namespace: 'ns',
      clock,
      transform: (o) => {
        transformed.push(`${o.metadata?.name}@${o.metadata?.resourceVersion}`);
        return o;
      },
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await informer.waitForSync();
    const cachedA = informer.get('ns', 'a');
    const log = record(informer);
    log.length = 0; // the late handler's replay of the cache
    transformed.length = 0;
    await tick(clock);
    stream!.push({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } });
    await tick(clock);
    await tick(clock);

    const relist = transport.requests.filter((r) => !r.query?.watch).slice(1);
    expect(relist.map((r) => [r.query?.limit, r.query?.continue])).toEqual([
      [500, undefined],
      [500, 'page-2'],
    ]);
    // Page one was taken in (b transformed; a, unchanged, not even that) before page two was asked for...
    expect(atSecondPage).toEqual([{ transformed: ['b@15'], cache: ['a@1', 'b@2', 'c@3'] }]);
    // ...and the cache became the list in one go, with no event for a.
    expect(log).toEqual(['update b@2->15', 'add d@16', 'delete c@3 unknown']);
    expect(cacheNow()).toEqual(['a@1', 'b@15', 'd@16']);
    expect(informer.get('ns', 'a')).toBe(cachedA);
    expect(transformed).toEqual(['b@15', 'd@16']);
    ac.abort();
    await run;
  });

  it(`a listed page is made cacheable ${LISTED_OBJECTS_PER_TURN} objects per turn of the event loop; objects cached at their listed version cost no share of it`, async () => {
    const n = 3 * LISTED_OBJECTS_PER_TURN + 1;
    const page = (rv: (i: number) => string) => Array.from({ length: n }, (_, i) => cm(`o${i}`, rv(i)));
    const clock = new FakeClock();
    let lists = 0;
    const transport = new FakeTransport((req) => {
      if (req.query?.watch) return lists === 1 ? status(410, 'Gone', 'too old') : { stream: new LiveStream(req.signal) };
      lists++;
      // The relist: every other object unchanged (same resourceVersion), the rest moved on.
      return { body: { metadata: { resourceVersion: String(10 * n + lists) }, items: page((i) => (lists === 1 || i % 2 === 0 ? String(i + 1) : String(n + i + 1))) } };
    });
    const client = new KubeClient({ transport, clock, qps: 0 });
    // Which turn of the event loop each object was transformed in.
    const turns = countTurns();
    const madePerTurn: Map<number, number>[] = [new Map(), new Map()];
    const informer = new SharedIndexInformer<KubeObject>({
      client: client.resource(Resources.configMaps),
      namespace: 'ns',
      clock,
      transform: (o) => {
        const counts = madePerTurn[lists - 1]!;
        counts.set(turns.now(), (counts.get(turns.now()) ?? 0) + 1);
        return o;
      },
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await informer.waitForSync();
    const [initial] = madePerTurn;
    expect([...initial!.values()].reduce((a, b) => a + b, 0)).toBe(n);
    expect(Math.max(...initial!.values())).toBe(LISTED_OBJECTS_PER_TURN);
    expect(initial!.size).toBe(Math.ceil(n / LISTED_OBJECTS_PER_TURN));
    // The 410 makes it list again: only the objects that moved are made again, and only they count.
    while (lists < 2 || informer.lastSyncResourceVersion() !== String(10 * n + 2)) await new Promise((r) => setImmediate(r));
    turns.stop();
    const relisted = madePerTurn[1]!;
    const moved = Math.floor(n / 2);
    expect([...relisted.values()].reduce((a, b) => a + b, 0)).toBe(moved);
    expect(relisted.size).toBe(Math.ceil(moved / LISTED_OBJECTS_PER_TURN));
    ac.abort();
    await run;
  });

  it(`a large list is committed ${RELIST_CHANGES_PER_TURN} changes per turn of the event loop, so timers (a Lease renewal) run in between; synced once all are in`, async () => {
    const n = 3 * RELIST_CHANGES_PER_TURN + 1;
    const items = Array.from({ length: n }, (_, i) => cm(`o${i}`, String(i + 1)));
    const { informer } = setup((req) => (req.query?.watch ? { stream: new LiveStream(req.signal) } : { body: { metadata: { resourceVersion: String(n + 1) }, items } }));
    // Which turn of the event loop each add came in.
    const turns = countTurns();
    let adds = 0;
    const addsPerTurn = new Map<number, number>();
    informer.addEventHandler({
      onAdd: () => {
        adds++;
        addsPerTurn.set(turns.now(), (addsPerTurn.get(turns.now()) ?? 0) + 1);
      },
    });
    // What a timer due during the commit saw: how many objects were in by then.
    const seenByTimers: number[] = [];
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    const timer = setInterval(() => seenByTimers.push(adds), 0);
    await informer.waitForSync();
    clearInterval(timer);
    turns.stop();
    expect(adds).toBe(n);
    expect(informer.indexer.size()).toBe(n);
    expect(Math.max(...addsPerTurn.values())).toBe(RELIST_CHANGES_PER_TURN);
    expect(addsPerTurn.size).toBe(Math.ceil(n / RELIST_CHANGES_PER_TURN));
    expect(seenByTimers.every((seen) => seen === 0 || seen === n || seen % RELIST_CHANGES_PER_TURN === 0)).toBe(true);
    ac.abort();
    await run;
  });

  it(`watch events already received are applied ${WATCH_EVENTS_PER_TURN} per turn of the event loop, so timers run in between`, async () => {
    const n = 3 * WATCH_EVENTS_PER_TURN + 1;
    let stream: LiveStream | undefined;
    const { informer } = setup((req) => {
      if (!req.query?.watch) return { body: { metadata: { resourceVersion: '1' }, items: [] } };
      stream = new LiveStream(req.signal);
      return { stream };
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await informer.waitForSync();
    while (!stream) await new Promise((r) => setImmediate(r));
    // Which turn of the event loop each add came in.
    const turns = countTurns();
    const addsPerTurn = new Map<number, number>();
    informer.addEventHandler({ onAdd: () => addsPerTurn.set(turns.now(), (addsPerTurn.get(turns.now()) ?? 0) + 1) });
    // A backlog: every event is there before the informer reads the first.
    for (let i = 0; i < n; i++) stream.push({ type: 'ADDED', object: cm(`o${i}`, String(i + 2)) });
    while (informer.indexer.size() < n) await new Promise((r) => setImmediate(r));
    turns.stop();
    expect(Math.max(...addsPerTurn.values())).toBe(WATCH_EVENTS_PER_TURN);
    expect(addsPerTurn.size).toBe(Math.ceil(n / WATCH_EVENTS_PER_TURN));
    ac.abort();
    await run;
  });

  it('a relist whose continue token expired is dropped whole and listed again from the start', async () => {
    const clock = new FakeClock();
    let lists = 0;
    const transport = new FakeTransport((req) => {
      if (req.query?.watch) return { stream: new LiveStream(req.signal) };
      lists++;
      if (req.query?.continue !== undefined) return status(410, 'Expired', 'The provided continue parameter is too old');
      return lists === 1
        ? { body: { metadata: { resourceVersion: '5', continue: 'stale' }, items: [cm('a', '1')] } }
        : { body: { metadata: { resourceVersion: '9' }, items: [cm('b', '8')] } };
    });
    const client = new KubeClient({ transport, clock, qps: 0 });
    const informer = new SharedIndexInformer<KubeObject>({ client: client.resource(Resources.configMaps), namespace: 'ns', clock });
    const log = record(informer);
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await informer.waitForSync();
    expect(lists).toBe(3);
    expect(log).toEqual(['add b@8 initial']);
    expect(informer.lastSyncResourceVersion()).toBe('9');
    ac.abort();
    await run;
  });

  it('caches through the factory\'s pools, shared by all its informers: equal strings and subtrees of listed and watched objects are held once', async () => {
    const clock = new FakeClock();
    let stream: LiveStream | undefined;
    const transport = new FakeTransport((req) => {
      if (!req.query?.watch) return { body: { metadata: { resourceVersion: '1' }, items: [cm('a', '1', { image: 'registry.example/app:v1' })] } };
      stream = new LiveStream(req.signal);
      return { stream };
    });
    const factory = new InformerFactory({ client: new KubeClient({ transport, clock, qps: 0 }), clock });
    const configMaps = factory.informerFor<KubeObject>(Resources.configMaps, { namespace: 'ns' });
    expect(factory.informerFor<KubeObject>(Resources.pods).pools).toBe(configMaps.pools);
    const ac = new AbortController();
    const run = configMaps.run(ac.signal);
    await tick(clock);
    expect(factory.pools.strings.has('registry.example/app:v1')).toBe(true);
    stream!.push({ type: 'ADDED', object: cm('b', '2', { image: 'registry.example/app:v1' }) });
    stream!.push({ type: 'MODIFIED', object: cm('a', '3', { image: 'registry.example/app:v2' }) });
    stream!.push({ type: 'ADDED', object: cm('c', '4', { image: 'registry.example/app:v2' }) });
    await tick(clock);
    expect(factory.pools.strings.has('registry.example/app:v2')).toBe(true);
    // The object's own identity is unique to it: never pooled.
    expect(factory.pools.strings.has('uid-a')).toBe(false);
    const data = (name: string): unknown => (configMaps.get('ns', name) as { data?: unknown } | undefined)?.data;
    expect(data('c')).toBe(data('a'));
    expect(data('b')).not.toBe(data('a'));
    expect(configMaps.get('ns', 'a')).toEqual(cm('a', '3', { image: 'registry.example/app:v2' }));
    ac.abort();
    await run;
  });

  it('a factory scope can cache through its own transform; asking for the same scope with another one throws', () => {
    const client = new KubeClient({ transport: new FakeTransport(), qps: 0 });
    const factory = new InformerFactory({ client });
    const nodes = factory.informerFor<KubeObject>(Resources.nodes, { transform: keepIdentityAndLabels });
    expect(nodes.transform).toBe(keepIdentityAndLabels);
    expect(factory.informerFor<KubeObject>(Resources.nodes, { transform: keepIdentityAndLabels })).toBe(nodes);
    expect(() => factory.informerFor<KubeObject>(Resources.nodes)).toThrow(/another transform/);
    expect(factory.informerFor<KubeObject>(Resources.configMaps).transform).toBe(stripManagedFields);
  });
});
