import { describe, expect, it } from 'vitest';
import { sumSamples } from './metrics.ts';

const text = [
  '# TYPE rest_client_requests_total counter',
  'rest_client_requests_total{code="201",method="POST",host="127.0.0.1:6443"} 12',
  'rest_client_requests_total{code="422",method="POST",host="127.0.0.1:6443"} 3',
  'rest_client_requests_total{code="422",method="PATCH",host="127.0.0.1:6443"} 4',
  'rest_client_requests_total_other{code="422",method="POST"} 100',
  'workqueue_depth 7',
].join('\n');

describe('sumSamples', () => {
  it.each<[string, Record<string, string>, number]>([
    ['rest_client_requests_total', {}, 19],
    ['rest_client_requests_total', { method: 'POST' }, 15],
    ['rest_client_requests_total', { method: 'POST', code: '422' }, 3],
    ['rest_client_requests_total', { code: '500' }, 0],
    ['workqueue_depth', {}, 7],
    ['absent_total', {}, 0],
  ])('%s %j = %i', (name, match, expected) => {
    expect(sumSamples(text, name, match)).toBe(expected);
  });
});
