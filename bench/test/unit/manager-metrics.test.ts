import { describe, expect, it } from 'vitest';
import { fleetGrowth, parseManagerMetrics, readingBetween, sumReadings } from '../../src/manager-metrics.ts';

const text = [
  '# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host',
  '# TYPE rest_client_requests_total counter',
  'rest_client_requests_total{code="201",method="POST",host="127.0.0.1:6443"} 300',
  'rest_client_requests_total{code="200",method="PATCH",host="127.0.0.1:6443"} 45',
  'rest_client_requests_total{code="409",method="PUT",host="127.0.0.1:6443"} 2',
  'rest_client_requests_total{code="200",method="DELETE",host="127.0.0.1:6443"} 10',
  'rest_client_requests_total{code="200",method="GET",host="127.0.0.1:6443"} 7',
  'rest_client_rate_limiter_duration_seconds_sum{verb="POST",host="127.0.0.1:6443"} 12.5',
  'rest_client_rate_limiter_duration_seconds_sum{verb="GET",host="127.0.0.1:6443"} 0.5',
  'rest_client_rate_limiter_duration_seconds_count{verb="POST",host="127.0.0.1:6443"} 300',
  'process_cpu_seconds_total 3.25',
].join('\n');

describe('a manager process on /metrics', () => {
  it('counts writes of any outcome, every request, the rate limiter\'s waits and its CPU', () => {
    expect(parseManagerMetrics(text)).toEqual({ writes: 357, requests: 364, rateLimiterWaitSeconds: 13, cpuSeconds: 3.25 });
  });

  it('sums processes and differences windows', () => {
    const one = parseManagerMetrics(text);
    expect(sumReadings([one, one]).writes).toBe(714);
    expect(readingBetween(one, sumReadings([one, one]))).toEqual(one);
    expect(parseManagerMetrics('')).toEqual({ writes: 0, requests: 0, rateLimiterWaitSeconds: 0, cpuSeconds: 0 });
  });

  it('counts a member that joined from 0 and says when one that left took its counts', () => {
    const one = parseManagerMetrics(text);
    const twice = sumReadings([one, one]);
    expect(fleetGrowth(new Map([['a', one]]), new Map([['a', twice], ['b', one]]))).toEqual({ used: twice, complete: true });
    expect(fleetGrowth(new Map([['a', one], ['b', one]]), new Map([['a', twice]]))).toEqual({ used: one, complete: false });
  });
});
