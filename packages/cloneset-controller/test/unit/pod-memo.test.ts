import { describe, expect, it } from 'vitest';
import { memoByPod, podVersionMark } from '../../src/core/pods/pod-memo.ts';

describe('memoByPod', () => {
  const counted = () => {
    let calls = 0;
    const read = memoByPod((pod: { metadata: { name: string } }) => {
      calls++;
      return { name: pod.metadata.name };
    });
    return { read, calls: () => calls };
  };

  it('derives a frozen pod once and shares the frozen value', () => {
    const { read, calls } = counted();
    const pod = Object.freeze({ metadata: Object.freeze({ name: 'a' }) });
    const first = read(pod);
    expect(read(pod)).toBe(first);
    expect(calls()).toBe(1);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('derives a pod that is not frozen every time: it may change between passes', () => {
    const { read, calls } = counted();
    const pod = { metadata: { name: 'a' } };
    expect(read(pod)).toEqual({ name: 'a' });
    pod.metadata.name = 'b';
    expect(read(pod)).toEqual({ name: 'b' });
    expect(calls()).toBe(2);
  });

  it('keeps an undefined value as well', () => {
    let calls = 0;
    const read = memoByPod((_: object) => {
      calls++;
      return undefined;
    });
    const pod = Object.freeze({});
    read(pod);
    read(pod);
    expect(calls).toBe(1);
  });
});

describe('podVersionMark', () => {
  it('marks a frozen pod version, not the next version nor a pod that is not frozen', () => {
    const mark = podVersionMark();
    const version = Object.freeze({ metadata: Object.freeze({ name: 'a', resourceVersion: '1' }) });
    const next = Object.freeze({ metadata: Object.freeze({ name: 'a', resourceVersion: '2' }) });
    const literal = { metadata: { name: 'a' } };
    mark.add(version);
    mark.add(literal);
    expect(mark.has(version)).toBe(true);
    expect(mark.has(next)).toBe(false);
    expect(mark.has(literal)).toBe(false);
  });

  it('keeps its mark apart from the facts memoByPod keeps on the same pod', () => {
    const mark = podVersionMark();
    const read = memoByPod((_: object) => true);
    const pod = Object.freeze({});
    expect(read(pod)).toBe(true);
    expect(mark.has(pod)).toBe(false);
  });
});
