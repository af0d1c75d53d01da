import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/client.ts';
import { Resources } from '../../src/client/gvr.ts';
import type { HttpRequest } from '../../src/client/transport.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { SharedIndexInformer } from '../../src/informer/shared-informer.ts';
import { silentWatchVerdict } from '../../src/informer/silent-watch.ts';
import { createLogger } from '../../src/logger.ts';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.ts';
import { FakeTransport, LiveStream, status, type FakeAnswer } from '../support/fake-transport.ts';

describe('silentWatchVerdict', () => {
  it.each([
    [0, 'debug'],
    [1, 'warn'],
    [250, 'warn'],
  ] as const)('%i missed changes: %s', (missed, level) => {
    expect(silentWatchVerdict(missed).level).toBe(level);
  });

  it('warns exactly when the restarted watch brought changes the silent one had not delivered', () => {
    fc.assert(fc.property(fc.nat(), (missed) => (silentWatchVerdict(missed).level === 'warn') === missed > 0));
  });
});

type Line = Record<string, unknown> & { level: string; msg: string };

const cm = (name: string, rv: string): KubeObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv, uid: `uid-${name}` } });

async function tick(clock: FakeClock, ms = 0): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setImmediate(r));
    await flushMicrotasks();
  }
  await clock.advance(ms);
}

/** An informer on a scripted apiserver whose watch streams fail on abort as undici's do, logging at debug into `lines`. */
function setup(script: (req: HttpRequest, streams: LiveStream[]) => FakeAnswer) {
  const clock = new FakeClock();
  const lines: Line[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
      cb();
    },
  });
  const streams: LiveStream[] = [];
  const transport = new FakeTransport((req) => script(req, streams));
  const client = new KubeClient({ transport, clock, qps: 0 });
  const informer = new SharedIndexInformer<KubeObject>({ client: client.resource(Resources.configMaps), namespace: 'ns', clock, logger: createLogger({ level: 'debug', destination }) });
  return { clock, informer, lines, streams };
}

function liveWatch(req: HttpRequest, streams: LiveStream[]): FakeAnswer {
  const stream = new LiveStream(req.signal, { failOnAbort: true });
  streams.push(stream);
  return { stream };
}

const SILENCE_MS = 90_000;

describe('a watch restarted for silence', () => {
  it('on an idle resource: one debug line, no warning and no error stack', async () => {
    const { clock, informer, lines, streams } = setup((req, streams) => (req.query?.watch ? liveWatch(req, streams) : { body: { metadata: { resourceVersion: '1' }, items: [cm('a', '1')] } }));
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await tick(clock);
    await tick(clock, SILENCE_MS);
    await tick(clock, 10_000);
    expect(streams).toHaveLength(2);
    const restart = lines.find((l) => l.msg === 'watch went silent; restarting it');
    expect(restart).toMatchObject({ level: 'debug', resource: 'configmaps' });
    expect(lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
    expect(lines.filter((l) => 'err' in l)).toEqual([]);
    expect(lines.find((l) => l.msg === silentWatchVerdict(0).msg)).toMatchObject({ level: 'debug', missedChanges: 0 });
    ac.abort();
    await run;
  });

  it('that had stopped delivering while objects changed: a warning once the resumed watch replays the changes', async () => {
    const { clock, informer, lines } = setup((req, streams) => {
      if (!req.query?.watch) return { body: { metadata: { resourceVersion: '1' }, items: [cm('a', '1')] } };
      const answer = liveWatch(req, streams);
      // The resumed watch replays at once what happened after resourceVersion 1.
      if (streams.length === 2) streams[1]?.push({ type: 'MODIFIED', object: cm('a', '7') });
      return answer;
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await tick(clock);
    await tick(clock, SILENCE_MS);
    await tick(clock, 10_000);
    expect(informer.getByKey('ns/a')?.metadata?.resourceVersion).toBe('7');
    expect(lines.filter((l) => l.level === 'warn')).toEqual([expect.objectContaining({ msg: silentWatchVerdict(1).msg, resource: 'configmaps', missedChanges: 1 })]);
    ac.abort();
    await run;
  });

  it('whose resourceVersion is gone: the relist tells whether changes were missed', async () => {
    let lists = 0;
    const { clock, informer, lines } = setup((req, streams) => {
      if (!req.query?.watch) {
        lists++;
        return { body: { metadata: { resourceVersion: String(lists * 10) }, items: lists === 1 ? [cm('a', '1')] : [cm('a', '1'), cm('b', '9')] } };
      }
      if (streams.length === 1 && req.query.resourceVersion === '10') {
        streams.push(new LiveStream());
        return status(410, 'Gone', 'too old resource version');
      }
      return liveWatch(req, streams);
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await tick(clock);
    await tick(clock, SILENCE_MS);
    await tick(clock, 10_000);
    expect(lists).toBe(2);
    expect(informer.getByKey('ns/b')).toBeDefined();
    expect(lines.filter((l) => l.level === 'warn')).toEqual([expect.objectContaining({ msg: silentWatchVerdict(1).msg, missedChanges: 1 })]);
    ac.abort();
    await run;
  });

  it('a watch that fails is still a warning with its error', async () => {
    let watches = 0;
    const { clock, informer, lines } = setup((req, streams) => {
      if (!req.query?.watch) return { body: { metadata: { resourceVersion: '1' }, items: [] } };
      watches++;
      return watches === 1 ? status(500, 'InternalError', 'etcd is down') : liveWatch(req, streams);
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await tick(clock);
    await tick(clock, 5_000);
    expect(lines.find((l) => l.msg === 'list/watch failed')).toMatchObject({ level: 'warn', err: expect.objectContaining({ message: expect.stringContaining('etcd is down') }) });
    ac.abort();
    await run;
  });
});
