import { describe, expect, it } from 'vitest';
import { packageOf, summarizeProfile, type CpuProfile } from '../../src/cpu-profile.ts';

describe('packageOf', () => {
  it.each([
    { url: 'file:///work/main/packages/kube-runtime/src/informer/store.ts', fn: 'add', want: 'kube-runtime' },
    { url: 'file:///work/main/node_modules/@cloneset-suite/cloneset-controller/src/x.ts', fn: 'f', want: 'cloneset-controller' },
    { url: 'file:///work/main/node_modules/undici/lib/core/request.js', fn: 'f', want: 'undici' },
    { url: 'node:internal/streams/readable', fn: 'read', want: 'node internals' },
    { url: 'wasm://wasm/00ad0bc6', fn: 'wasm-function[619]', want: 'wasm (undici\'s HTTP parser)' },
    { url: '', fn: '(garbage collector)', want: '(garbage collector)' },
    { url: '', fn: 'JSONParse', want: 'V8 builtins' },
    { url: 'file:///work/main/bench/src/controller-child.ts', fn: 'send', want: 'bench' },
  ])('$url $fn -> $want', ({ url, fn, want }) => {
    expect(packageOf(url, fn)).toBe(want);
  });
});

describe('summarizeProfile', () => {
  it('adds each busy sample\'s time to its function and package, largest first', () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', '') },
        { id: 2, callFrame: frame('reconcile', 'file:///r/packages/cloneset-controller/src/reconciler/plan.ts') },
        { id: 3, callFrame: frame('parse', 'file:///r/packages/kube-runtime/src/client/raw-json.ts') },
        { id: 4, callFrame: frame('(garbage collector)', '') },
        { id: 5, callFrame: frame('(idle)', '') },
      ],
      samples: [2, 3, 2, 4, 5, 2],
      timeDeltas: [1000, 2000, 1000, 4000, 50_000, 2000],
    };
    const s = summarizeProfile(profile, 2);
    expect(s.totalMs).toBe(10);
    expect(s.functions).toEqual([
      { name: 'reconcile reconciler/plan.ts:10', where: 'cloneset-controller', ms: 4, share: 0.4 },
      { name: '(garbage collector)', where: '(garbage collector)', ms: 4, share: 0.4 },
    ]);
    expect(s.packages.map((p) => [p.where, p.ms])).toEqual([
      ['cloneset-controller', 4],
      ['(garbage collector)', 4],
      ['kube-runtime', 2],
    ]);
  });
});
