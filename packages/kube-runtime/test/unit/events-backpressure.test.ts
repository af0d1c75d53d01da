// While the apiserver is slow, the recorder's queue of writes stays bounded;
// what does not fit is dropped and counted, and recording resumes once writes drain.
import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/client/client.ts';
import { DEFAULT_MAX_QUEUED_EVENT_WRITES, EventRecorder } from '../../src/events.ts';
import { createMetrics } from '../../src/metrics.ts';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.ts';
import { FakeTransport } from '../support/fake-transport.ts';

const pod = (i: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: 'ns', uid: `u-${i}` } });

function setup(maxQueuedWrites?: number) {
  const clock = new FakeClock(1_700_000_000_000);
  const blocked: (() => void)[] = [];
  const state = { slow: true };
  const transport = new FakeTransport(async (req) => {
    if (state.slow) await new Promise<void>((resolve) => blocked.push(resolve));
    return { body: JSON.parse(req.body ?? '{}') as Record<string, unknown> };
  });
  const metrics = createMetrics();
  const recorder = new EventRecorder({
    client: new KubeClient({ transport, clock, qps: 0 }),
    reportingController: 'demo',
    reportingInstance: 'ctl-0',
    clock,
    metrics,
    maxQueuedWrites,
  });
  const recover = async (): Promise<void> => {
    state.slow = false;
    for (let i = 0; i < 100 && (blocked.length > 0 || recorder.queuedWrites() > 0); i++) {
      blocked.shift()?.();
      await new Promise((r) => setImmediate(r));
      await flushMicrotasks(50);
    }
  };
  return { clock, transport, recorder, metrics, recover };
}

describe('EventRecorder under a slow apiserver', () => {
  it('has a bounded default queue', () => {
    expect(DEFAULT_MAX_QUEUED_EVENT_WRITES).toBeGreaterThan(0);
    expect(DEFAULT_MAX_QUEUED_EVENT_WRITES).toBeLessThanOrEqual(1000);
  });

  it('queues at most maxQueuedWrites, drops and counts the rest, and records again once drained', async () => {
    const { transport, recorder, metrics, recover } = setup(10);
    for (let i = 0; i < 500; i++) recorder.event(pod(i), 'Normal', 'SuccessfulCreate', 'Create', `pod p-${i}`);
    await flushMicrotasks(50);
    expect(recorder.queuedWrites()).toBe(10);
    expect((await metrics.eventsDropped.get()).values.find((v) => v.labels.reason === 'SuccessfulCreate')?.value).toBe(490);
    await recover();
    expect(recorder.queuedWrites()).toBe(0);
    expect(transport.requests.filter((r) => r.method === 'POST')).toHaveLength(10);
    // A dropped event is not remembered as written: its next occurrence creates it.
    recorder.event(pod(400), 'Normal', 'SuccessfulCreate', 'Create', 'pod p-400');
    await flushMicrotasks(50);
    expect(transport.requests.filter((r) => r.method === 'POST')).toHaveLength(11);
  });
});
