import { describe, expect, it } from 'vitest';
import { cpuNeededAt, fairCpuShare, parseMetrics, serverWindow } from '../../src/server-window.ts';

const scrape = (handled: number, within5ms: number, sumSeconds: number, cpuSeconds: number, minorGcs: number, extra = ''): string => `# HELP controller_runtime_webhook_latency_seconds Histogram
# TYPE controller_runtime_webhook_latency_seconds histogram
controller_runtime_webhook_latency_seconds_bucket{le="0.005",webhook="/mutate-pod"} ${within5ms}
controller_runtime_webhook_latency_seconds_bucket{le="0.01",webhook="/mutate-pod"} ${handled}
controller_runtime_webhook_latency_seconds_sum{webhook="/mutate-pod"} ${sumSeconds}
controller_runtime_webhook_latency_seconds_count{webhook="/mutate-pod"} ${handled}
controller_runtime_webhook_latency_seconds_count{webhook="/validate-pod"} 7
process_cpu_seconds_total ${cpuSeconds}
nodejs_gc_duration_seconds_sum{kind="minor"} ${minorGcs * 0.001}
nodejs_gc_duration_seconds_count{kind="minor"} ${minorGcs}
${extra}`;

describe('parseMetrics', () => {
  it('keys every sample by its name and labels, skipping comments and blank lines', () => {
    const s = parseMetrics('# HELP x y\nup 1\nreq{code="200",path="/a b"} 2.5\n\n');
    expect([...s]).toEqual([
      ['up', 1],
      ['req{code="200",path="/a b"}', 2.5],
    ]);
  });
});

describe('serverWindow', () => {
  it('reports what happened between the two scrapes, for one webhook', () => {
    const before = parseMetrics(scrape(100, 90, 0.1, 10, 5));
    const after = parseMetrics(scrape(1100, 1040, 0.6, 10.2, 25, 'nodejs_eventloop_lag_p99_seconds 0.004\nnodejs_eventloop_lag_max_seconds 0.02\n'));
    const w = serverWindow(before, after, '/mutate-pod');
    expect(w.requests).toBe(1000);
    expect(w.handledWithin5msShare).toBeCloseTo(0.95);
    expect(w.meanHandlerMs).toBeCloseTo(0.5);
    expect(w.cpuUsPerRequest).toBeCloseTo(200);
    expect(w.cpuSeconds).toBeCloseTo(w.requests * 200e-6);
    expect(w.loopDelayP99Ms).toBeCloseTo(4);
    expect(w.loopDelayMaxMs).toBeCloseTo(20);
    expect(w.gc.minor.count).toBe(20);
    expect(w.gc.minor.ms).toBeCloseTo(20);
    expect(w.gc.major).toEqual({ count: 0, ms: 0 });
  });

  it('says n/a (NaN) per request when the webhook served nothing, and for a delay it was not told', () => {
    const same = parseMetrics(scrape(5, 5, 0.01, 1, 0));
    const w = serverWindow(same, same, '/mutate-pod');
    expect(w.requests).toBe(0);
    expect(w.handledWithin5msShare).toBeNaN();
    expect(w.cpuUsPerRequest).toBeNaN();
    expect(w.loopDelayP99Ms).toBeNaN();
  });
});

describe('CPU needed against CPU available', () => {
  it('needs 250 µs × 1,000 req/s = a quarter of one CPU', () => {
    const w = serverWindow(parseMetrics(scrape(0, 0, 0, 0, 0)), parseMetrics(scrape(1000, 1000, 0.1, 0.25, 0)), '/mutate-pod');
    expect(cpuNeededAt(w, 1000)).toBeCloseTo(0.25);
  });

  it.each([
    [2, 16, 0.125],
    [2, 4, 0.5],
    [2, 1.5, 1],
    [2, 0, 1],
  ])('%i CPUs at a load of %d: about %d of one CPU per runnable thread', (cpus, load, share) => {
    expect(fairCpuShare(cpus, load)).toBeCloseTo(share);
  });
});
