import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/client.ts';
import { EventRecorder } from '../../src/events.ts';
import { createMetrics } from '../../src/metrics.ts';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.ts';
import { FakeTransport, status } from '../support/fake-transport.ts';

const cs = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'CloneSet',
  metadata: { name: 'web', namespace: 'ns', uid: 'u-1', resourceVersion: '7' },
};

function setup(options: { flushIntervalMs?: number; aggregationWindowMs?: number } = {}) {
  const clock = new FakeClock(1_700_000_000_000);
  let patchAnswer = (): ReturnType<typeof status> | undefined => undefined;
  const transport = new FakeTransport((req) => {
    if (req.method === 'PATCH') return patchAnswer() ?? { body: {} };
    const body = JSON.parse(req.body ?? '{}') as Record<string, unknown>;
    return { body };
  });
  const metrics = createMetrics();
  const recorder = new EventRecorder({
    client: new KubeClient({ transport, clock, qps: 0 }),
    reportingController: 'apps.kruise.io/cloneset-controller',
    reportingInstance: 'ctl-0',
    clock,
    metrics,
    ...options,
  });
  return { clock, transport, recorder, metrics, setPatchAnswer: (f: typeof patchAnswer) => (patchAnswer = f) };
}

async function settle(clock: FakeClock, ms = 0): Promise<void> {
  await clock.advance(ms);
  await flushMicrotasks(50);
}

describe('EventRecorder', () => {
  it('creates an events.k8s.io/v1 Event with the reference and reporting fields', async () => {
    const { clock, transport, recorder } = setup();
    recorder.event(cs, 'Warning', 'FailedCreate', 'Create', 'pods "web-abc" is forbidden');
    await settle(clock);
    expect(transport.requests).toHaveLength(1);
    const req = transport.requests[0]!;
    expect(req.path).toBe('/apis/events.k8s.io/v1/namespaces/ns/events');
    expect(JSON.parse(req.body!)).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      reason: 'FailedCreate',
      action: 'Create',
      type: 'Warning',
      reportingController: 'apps.kruise.io/cloneset-controller',
      reportingInstance: 'ctl-0',
      regarding: { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', namespace: 'ns', uid: 'u-1' },
      eventTime: '2023-11-14T22:13:20.000000Z',
    });
  });

  it('folds repeats into one series update per flush interval', async () => {
    const { clock, transport, recorder, metrics } = setup({ flushIntervalMs: 30_000 });
    for (let i = 0; i < 500; i++) {
      recorder.event(cs, 'Warning', 'FailedCreate', 'Create', 'quota exceeded');
      await settle(clock, 10);
    }
    await settle(clock, 30_000);
    const verbs = transport.requests.map((r) => r.method);
    expect(verbs.filter((v) => v === 'POST')).toHaveLength(1);
    const patches = transport.requests.filter((r) => r.method === 'PATCH');
    expect(patches.length).toBeLessThanOrEqual(2);
    const last = JSON.parse(patches.at(-1)!.body!);
    expect(last.series.count).toBe(500);
    expect(patches.at(-1)!.contentType).toBe('application/merge-patch+json');
    expect(await metrics.registry.getSingleMetricAsString('event_recorder_aggregated_total')).toContain('} 499');
    // A different note is a different event.
    recorder.event(cs, 'Warning', 'FailedCreate', 'Create', 'another reason');
    await settle(clock);
    expect(transport.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
  });

  it('folds similar events with different notes into one combined Event, as client-go does', async () => {
    const { clock, transport, recorder } = setup({ flushIntervalMs: 30_000 });
    const pod = (i: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${i}`, namespace: 'ns', uid: `p-${i}` } });
    for (let i = 0; i < 300; i++) {
      recorder.event(cs, 'Normal', 'SuccessfulCreate', 'Create', `succeed to create pod web-${i}`, pod(i));
      await settle(clock, 10);
    }
    await settle(clock, 30_000);
    const posts = transport.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body!) as { note: string; related?: unknown });
    expect(posts.map((e) => e.note)).toEqual([
      ...Array.from({ length: 9 }, (_, i) => `succeed to create pod web-${i}`),
      '(combined from similar events): succeed to create pod web-9',
    ]);
    expect(posts[0]!.related).toMatchObject({ kind: 'Pod', name: 'web-0' });
    expect(posts[9]!.related).toBeUndefined();
    const patches = transport.requests.filter((r) => r.method === 'PATCH');
    expect(patches).toHaveLength(1);
    expect(JSON.parse(patches[0]!.body!).series.count).toBe(291);
  });

  it('keeps other reasons, types and objects apart, and starts over after 10 quiet minutes', async () => {
    const { clock, transport, recorder } = setup();
    const other = { ...cs, metadata: { ...cs.metadata, name: 'api', uid: 'u-2' } };
    for (let i = 0; i < 9; i++) {
      recorder.event(cs, 'Normal', 'SuccessfulCreate', 'Create', `succeed to create pod web-${i}`);
      recorder.event(cs, 'Normal', 'SuccessfulDelete', 'Delete', `succeed to delete pod web-${i}`);
      recorder.event(cs, 'Warning', 'SuccessfulCreate', 'Create', `warned about web-${i}`);
      recorder.event(other, 'Normal', 'SuccessfulCreate', 'Create', `succeed to create pod api-${i}`);
    }
    await recorder.flush(); // writes go one at a time: wait for all of them
    const notes = (): string[] => transport.requests.filter((r) => r.method === 'POST').map((r) => (JSON.parse(r.body!) as { note: string }).note);
    expect(notes().filter((n) => n.startsWith('(combined'))).toEqual([]);
    recorder.event(cs, 'Normal', 'SuccessfulCreate', 'Create', 'succeed to create pod web-9');
    await recorder.flush(); // writes go one at a time: wait for all of them
    expect(notes().at(-1)).toBe('(combined from similar events): succeed to create pod web-9');
    await settle(clock, 10 * 60_000 + 1);
    recorder.event(cs, 'Normal', 'SuccessfulCreate', 'Create', 'succeed to create pod web-10');
    await recorder.flush(); // writes go one at a time: wait for all of them
    expect(notes().at(-1)).toBe('succeed to create pod web-10');
  });

  it('starts a new Event after the aggregation window or when the old one is gone', async () => {
    const { clock, transport, recorder, setPatchAnswer } = setup({ aggregationWindowMs: 60_000, flushIntervalMs: 1_000 });
    recorder.event(cs, 'Normal', 'SuccessfulCreate', 'Create', 'created pod');
    await settle(clock, 61_000);
    recorder.event(cs, 'Normal', 'SuccessfulCreate', 'Create', 'created pod');
    await settle(clock);
    expect(transport.requests.filter((r) => r.method === 'POST')).toHaveLength(2);

    setPatchAnswer(() => status(404, 'NotFound', 'events "x" not found'));
    recorder.event(cs, 'Normal', 'SuccessfulCreate', 'Create', 'created pod');
    await settle(clock, 1_000); // series patch answers 404: forget it
    recorder.event(cs, 'Normal', 'SuccessfulCreate', 'Create', 'created pod');
    await settle(clock);
    expect(transport.requests.filter((r) => r.method === 'POST')).toHaveLength(3);
  });

  it('never throws when the apiserver refuses, and stop() flushes', async () => {
    const clock = new FakeClock();
    const transport = new FakeTransport((req) => (req.method === 'POST' ? status(403, 'Forbidden', 'no') : { body: {} }));
    const recorder = new EventRecorder({ client: new KubeClient({ transport, clock, qps: 0 }), reportingController: 'c', reportingInstance: 'i', clock });
    expect(() => recorder.event(cs, 'Normal', 'R', 'A', 'n')).not.toThrow();
    await recorder.stop();
    recorder.event(cs, 'Normal', 'R', 'A', 'n');
    await flushMicrotasks();
    expect(transport.requests).toHaveLength(1);
  });
});
