// Reads the monorepo's workspace manifests from disk (the root package.json's `workspaces` globs).
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RootManifest } from './image-layout.ts';
import type { WorkspaceManifest } from './workspace-graph.ts';

export function readRootManifest(repoRoot: string): RootManifest {
  return JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as RootManifest;
}

export function readWorkspaces(repoRoot: string, root: RootManifest = readRootManifest(repoRoot)): WorkspaceManifest[] {
  const patterns = root.workspaces;
  if (!Array.isArray(patterns) || !patterns.every((p) => typeof p === 'string')) {
    throw new Error(`${path.join(repoRoot, 'package.json')}: "workspaces" must be a list of directory globs`);
  }
  return patterns.flatMap((pattern) =>
    globSync(path.join(pattern, 'package.json'), { cwd: repoRoot }).map((manifestPath) => {
      const manifest = JSON.parse(readFileSync(path.join(repoRoot, manifestPath), 'utf8')) as { name?: unknown; dependencies?: Record<string, string> };
      if (typeof manifest.name !== 'string') throw new Error(`${manifestPath}: "name" must be a string`);
      return { dir: path.dirname(manifestPath), name: manifest.name, dependencies: manifest.dependencies ?? {} };
    }),
  );
}
