import { describe, expect, it } from 'vitest';
import { memoByPod } from '../../src/core/pods/pod-memo.ts';

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
