import { describe, expect, it } from 'vitest';
import { batchGaps, rolloutReached } from '../../src/rollout-timeline.ts';

const V1 = 'app:v1';
const V2 = 'app:v2';
const STATE = 'lifecycle.apps.kruise.io/state';

const pod = (o: { spec?: string; status?: string; running?: boolean; node?: string; gate?: string; ready?: boolean; state?: string; marked?: boolean; deleting?: boolean }) => ({
  metadata: {
    labels: { ...(o.state ? { [STATE]: o.state } : {}), ...(o.marked ? { 'apps.kruise.io/specified-delete': 'true' } : {}) },
    ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: { containers: [{ name: 'app', image: o.spec ?? V1 }], ...(o.node ? { nodeName: o.node } : {}) },
  status: {
    containerStatuses: [{ name: 'app', image: o.status ?? V1, state: o.running === false ? { waiting: {} } : { running: {} } }],
    conditions: [...(o.gate ? [{ type: 'InPlaceUpdateReady', status: o.gate }] : []), { type: 'Ready', status: o.ready ? 'True' : 'False' }],
  },
});

describe('rolloutReached', () => {
  it.each([
    { what: 'an old pod untouched', p: pod({ gate: 'True', ready: true, state: 'Normal' }), isNew: false, want: [] },
    { what: 'an old pod marked', p: pod({ marked: true, ready: true }), isNew: false, want: ['marked specified-delete'] },
    { what: 'an old pod deleted', p: pod({ marked: true, deleting: true }), isNew: false, want: ['marked specified-delete', 'old pod deleted'] },
    { what: 'in place: gate False only', p: pod({ gate: 'False', ready: false, state: 'Normal' }), isNew: false, want: ['gate False'] },
    { what: 'in place: spec updated', p: pod({ spec: V2, gate: 'False', state: 'Updating' }), isNew: false, want: ['gate False', 'spec updated'] },
    { what: 'in place: restarted', p: pod({ spec: V2, status: V2, gate: 'False', state: 'Updating' }), isNew: false, want: ['gate False', 'spec updated', 'containers running new image'] },
    {
      what: 'in place: gate True, still Updating, Ready',
      p: pod({ spec: V2, status: V2, gate: 'True', state: 'Updating', ready: true }),
      isNew: false,
      want: ['spec updated', 'containers running new image', 'gate True', 'Ready'],
    },
    {
      what: 'in place: done',
      p: pod({ spec: V2, status: V2, gate: 'True', state: 'Normal', ready: true }),
      isNew: false,
      want: ['spec updated', 'containers running new image', 'gate True', 'state Normal', 'Ready', 'available'],
    },
    { what: 'a new pod, not scheduled', p: pod({ spec: V2, status: V2, running: false }), isNew: true, want: ['new pod created'] },
    { what: 'a new pod, scheduled, not started', p: pod({ spec: V2, status: V2, running: false, node: 'n' }), isNew: true, want: ['new pod created', 'scheduled'] },
    { what: 'a new pod, started', p: pod({ spec: V2, status: V2, node: 'n' }), isNew: true, want: ['new pod created', 'scheduled', 'containers running new image'] },
    { what: 'a new Deployment pod Ready', p: pod({ spec: V2, status: V2, ready: true, node: 'n' }), isNew: true, want: ['new pod created', 'scheduled', 'containers running new image', 'Ready', 'available'] },
    { what: 'a new CloneSet pod Ready but PreparingNormal', p: pod({ spec: V2, status: V2, gate: 'True', ready: true, state: 'PreparingNormal' }), isNew: true, want: ['new pod created', 'containers running new image', 'gate True', 'Ready'] },
    { what: 'a Ready pod still on the old image in its status', p: pod({ spec: V2, ready: true }), isNew: true, want: ['new pod created'] },
  ])('$what', ({ p, isNew, want }) => {
    expect(rolloutReached(p, V2, isNew)).toEqual(want);
  });
});

describe('batchGaps', () => {
  it('is the time from the last pod becoming available to the next write, per batch', () => {
    const perPod = [
      { 'gate False': 10, 'spec updated': 20, available: 500 },
      { 'gate False': 12, available: 520 },
      { 'gate False': 700, available: 1200 },
      { 'gate False': 710, available: 1210 },
      { 'gate False': 1500 },
    ];
    expect(batchGaps(perPod)).toEqual({ firstWriteMs: 10, gapsMs: [180, 290] });
  });

  it('takes the earliest write of a pod, a create as a write, and a tie as a gap of 0', () => {
    const perPod = [
      { 'marked specified-delete': 30, 'old pod deleted': 40 },
      { 'new pod created': 60, available: 400 },
      { 'marked specified-delete': 400, 'old pod deleted': 450 },
    ];
    expect(batchGaps(perPod)).toEqual({ firstWriteMs: 30, gapsMs: [0] });
  });

  it('has no first write and no gap when nothing was written', () => {
    expect(batchGaps([{ available: 5 }])).toEqual({ firstWriteMs: Number.NaN, gapsMs: [] });
  });
});
