import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runtimeClosure, type WorkspaceManifest } from '../../src/workspace-graph.ts';

const ws = (dir: string, name: string, dependencies: Record<string, string> = {}): WorkspaceManifest => ({ dir, name, dependencies });

describe('runtimeClosure', () => {
  const graph = [
    ws('apps/manager', '@s/manager', { '@s/controller': '*', fastify: '^5' }),
    ws('packages/controller', '@s/controller', { '@s/types': '*', '@s/runtime': '*' }),
    ws('packages/runtime', '@s/runtime', { '@s/types': '*' }),
    ws('packages/types', '@s/types', { yaml: '^2' }),
    ws('packages/cluster', '@s/cluster', {}),
    ws('apps/plugin', '@s/plugin', { '@s/types': '*' }),
  ];

  it.each([
    ['@s/manager', ['apps/manager', 'packages/controller', 'packages/runtime', 'packages/types']],
    ['@s/runtime', ['packages/runtime', 'packages/types']],
    ['@s/types', ['packages/types']],
    ['@s/plugin', ['apps/plugin', 'packages/types']],
  ])('%s needs %j', (root, dirs) => {
    expect(runtimeClosure(graph, root).map((w) => w.dir)).toEqual(dirs);
  });

  it('follows dependencies only, never devDependencies (they are not in the manifest it reads)', () => {
    const withDev = [ws('a', 'a', {}), ws('b', 'b', {})];
    expect(runtimeClosure(withDev, 'a').map((w) => w.name)).toEqual(['a']);
  });

  it('survives a cycle', () => {
    expect(runtimeClosure([ws('a', 'a', { b: '*' }), ws('b', 'b', { a: '*' })], 'a').map((w) => w.dir)).toEqual(['a', 'b']);
  });

  it('names the unknown entry and the known workspaces', () => {
    expect(() => runtimeClosure(graph, '@s/nope')).toThrow(/no workspace is named "@s\/nope" \(known: @s\/cluster, @s\/controller/);
  });

  it('holds every workspace a kept one depends on, and only reachable ones', () => {
    const arbGraph = fc.integer({ min: 1, max: 8 }).chain((n) =>
      fc.array(fc.uniqueArray(fc.nat(n - 1), { maxLength: n }), { minLength: n, maxLength: n }).map((edges) =>
        edges.map((deps, i) => ws(`w${i}`, `n${i}`, Object.fromEntries([...deps.map((d) => [`n${d}`, '*']), ['third-party', '^1']]))),
      ),
    );
    fc.assert(
      fc.property(arbGraph, (workspaces) => {
        const kept = new Set(runtimeClosure(workspaces, 'n0').map((w) => w.name));
        expect(kept.has('n0')).toBe(true);
        for (const w of workspaces.filter((x) => kept.has(x.name))) {
          for (const dep of Object.keys(w.dependencies).filter((d) => d !== 'third-party')) expect(kept.has(dep)).toBe(true);
        }
        // Reachability by a plain fixpoint: nothing kept that no kept workspace (or the entry) names.
        for (const name of kept) {
          if (name !== 'n0') expect(workspaces.some((w) => kept.has(w.name) && name in w.dependencies)).toBe(true);
        }
      }),
    );
  });
});
