import { describe, expect, it } from 'vitest';
import { windowCpu, windowCpuNote } from '../../src/window-cpu.ts';

describe('windowCpu', () => {
  const before = { atMs: 1_000, processes: { 'kube-apiserver': 10, etcd: 5, bench: 2 }, machine: { busy: 100, steal: 1 } };
  const after = { atMs: 6_000, processes: { 'kube-apiserver': 10.5, etcd: 5.25, bench: 4 }, machine: { busy: 106, steal: 1.5 } };

  it('splits the machine\'s busy time into the named processes, the server and the rest', () => {
    const w = windowCpu(before, after, 2);
    expect(w.seconds).toBe(5);
    expect(w.byProcess).toEqual({ server: 2, apiserver: 0.5, etcd: 0.25, 'the bench (its load generator)': 2 });
    expect(w.machineBusy).toBe(6);
    expect(w.rest).toBeCloseTo(1.25);
    expect(w.steal).toBeCloseTo(0.5);
  });

  it('has no machine figures where /proc/stat was not read', () => {
    const { machine: _unread, ...withoutMachine } = before;
    const w = windowCpu(withoutMachine, after, 2);
    expect(w.machineBusy).toBeUndefined();
    expect(w.rest).toBeUndefined();
  });

  it('writes the largest user first, with the machine\'s share', () => {
    const note = windowCpuNote(windowCpu(before, after, 3), 2);
    expect(note).toContain('busy for 6.00 of 10.00 CPU seconds (60%)');
    expect(note.indexOf('the webhook server 3.00')).toBeLessThan(note.indexOf('apiserver 0.50'));
    expect(note).toContain('the rest of the machine 0.25; stolen by the hypervisor for other guests: 0.50');
  });
});
