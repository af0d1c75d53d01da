import { describe, expect, it } from 'vitest';
import { countsBetween, parseRequestCounts, podWrites } from '../../src/apiserver-requests.ts';

const SAMPLE = [
  '# HELP apiserver_request_total [STABLE] Counter of apiserver requests',
  '# TYPE apiserver_request_total counter',
  'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 1204',
  'apiserver_request_total{code="409",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 293',
  'apiserver_request_total{code="422",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 41',
  'apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 300',
  'apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 300',
  'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 7',
  'apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 311',
  'apiserver_request_duration_seconds_bucket{le="0.005",resource="pods",verb="PATCH"} 9',
].join('\n');

describe('apiserver request counts', () => {
  it('sums apiserver_request_total by verb, resource/subresource and code', () => {
    expect(parseRequestCounts(SAMPLE)).toEqual({
      'PATCH pods/status 200': 1204,
      'PATCH pods/status 409': 293,
      'PATCH pods/status 422': 41,
      'POST pods 201': 300,
      'POST pods/binding 201': 300,
      'LIST pods 200': 7,
      'POST events 201': 311,
    });
  });

  it('counts pod writes of every subresource and outcome, and the refused ones among them (409 and 422)', () => {
    expect(podWrites(parseRequestCounts(SAMPLE))).toEqual({ total: 2138, refused: 334 });
  });

  it('keeps only what grew between two readings', () => {
    expect(countsBetween({ 'POST pods 201': 10, 'GET pods 200': 4 }, { 'POST pods 201': 25, 'GET pods 200': 4, 'PATCH pods 409': 2 })).toEqual({ 'POST pods 201': 15, 'PATCH pods 409': 2 });
  });
});
