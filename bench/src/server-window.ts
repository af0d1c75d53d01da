// The webhook server's own view of a load window, from two scrapes of the manager's /metrics
// (before and after): how long its handlers took (controller-runtime's histogram), the CPU it
// spent per request, its event-loop delay and the garbage collections in between. Set beside the
// client's latencies, this separates the server's share from what the machine adds.

/** One scrape: the value of every sample, keyed by its text as exposed (`name{labels}`). */
export type Scrape = ReadonlyMap<string, number>;

export function parseMetrics(text: string): Scrape {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    if (space > 0) samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

export interface GcWindow {
  count: number;
  ms: number;
}

export interface ServerWindow {
  requests: number;
  /** Share of the window's requests whose handler finished within 5 ms (the histogram's first bucket). */
  handledWithin5msShare: number;
  meanHandlerMs: number;
  cpuUsPerRequest: number;
  /** The server process's CPU seconds over the window. */
  cpuSeconds: number;
  /** prom-client resets its event-loop delay histogram at every scrape: these cover the window. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  gc: Record<'minor' | 'major' | 'incremental', GcWindow>;
}

const delta = (before: Scrape, after: Scrape, key: string): number => (after.get(key) ?? 0) - (before.get(key) ?? 0);

export function serverWindow(before: Scrape, after: Scrape, webhook: string): ServerWindow {
  const hist = (suffix: string, le?: string): number =>
    delta(before, after, `controller_runtime_webhook_latency_seconds_${suffix}{${le ? `le="${le}",` : ''}webhook="${webhook}"}`);
  const requests = hist('count');
  const per = (n: number): number => (requests > 0 ? n / requests : Number.NaN);
  const gc = (kind: string): GcWindow => ({
    count: delta(before, after, `nodejs_gc_duration_seconds_count{kind="${kind}"}`),
    ms: delta(before, after, `nodejs_gc_duration_seconds_sum{kind="${kind}"}`) * 1000,
  });
  return {
    requests,
    handledWithin5msShare: per(hist('bucket', '0.005')),
    meanHandlerMs: per(hist('sum') * 1000),
    cpuUsPerRequest: per(delta(before, after, 'process_cpu_seconds_total') * 1e6),
    cpuSeconds: delta(before, after, 'process_cpu_seconds_total'),
    loopDelayP99Ms: (after.get('nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000,
    loopDelayMaxMs: (after.get('nodejs_eventloop_lag_max_seconds') ?? Number.NaN) * 1000,
    gc: { minor: gc('minor'), major: gc('major'), incremental: gc('incremental') },
  };
}

/** The share of one CPU the server needs to keep up with rps requests a second (1 = a whole CPU). */
export const cpuNeededAt = (w: ServerWindow, rps: number): number => (w.cpuUsPerRequest * rps) / 1e6;

/** About the share of one CPU a runnable thread gets when `load` threads want `cpus` CPUs (1 when they are not all busy). */
export const fairCpuShare = (cpus: number, load: number): number => Math.min(1, cpus / Math.max(load, Number.MIN_VALUE));
