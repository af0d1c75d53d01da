import { describe, expect, it } from 'vitest';
import { imageLayout, pathDisposition } from '../../src/image-layout.ts';
import { readRootManifest, readWorkspaces } from '../../src/workspaces.ts';
import { repoRoot } from './repo-root.ts';

describe('imageLayout', () => {
  it("keeps the controller-manager's run-time workspaces of this repo, with their manifests and sources", () => {
    const root = readRootManifest(repoRoot);
    const layout = imageLayout(root, readWorkspaces(repoRoot, root), '@cloneset-suite/controller-manager');
    expect(layout.workspaceDirs).toEqual([
      'apps/controller-manager',
      'packages/api-types',
      'packages/cloneset-controller',
      'packages/kube-runtime',
      'packages/podopslifecycle',
      'packages/transition-rule',
    ]);
    expect(layout.keep).toContain('apps/controller-manager/src');
    expect(layout.keep).toContain('package-lock.json');
    expect(layout.keep).not.toContain('packages/local-cluster/src');
  });

  it('writes a root manifest without the monorepo tooling', () => {
    const layout = imageLayout(
      { name: 'r', private: true, type: 'module', workspaces: ['packages/*'], devDependencies: { node: '^24' }, scripts: { test: 'x' } },
      [{ dir: 'packages/a', name: 'a', dependencies: {} }],
      'a',
    );
    expect(layout.rootManifest).toEqual({ name: 'r', private: true, type: 'module', workspaces: ['packages/a'] });
  });
});

describe('pathDisposition', () => {
  const keep = ['package.json', 'packages/a/src', 'packages/a/package.json'];
  it.each([
    ['package.json', 'keep'],
    ['packages/a/src', 'keep'],
    ['packages/a/src/deep/file.ts', 'keep'],
    ['packages', 'descend'],
    ['packages/a', 'descend'],
    ['packages/a/test', 'remove'],
    ['packages/ab', 'remove'],
    ['packages/a/srcx', 'remove'],
    ['Dockerfile', 'remove'],
  ] as const)('%s: %s', (p, expected) => {
    expect(pathDisposition(p, keep)).toBe(expected);
  });
});
