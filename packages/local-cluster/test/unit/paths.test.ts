import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterDirOf, defaultClusterName, repoRoot } from '../../src/paths.ts';

describe('clusterDirOf', () => {
  it('keeps the default cluster in .cluster, where the README points', () => {
    expect(clusterDirOf(defaultClusterName)).toBe(path.join(repoRoot, '.cluster'));
  });

  it('gives every other cluster name its own directory, so two clusters never share a kubeconfig', () => {
    const a = clusterDirOf('ci-check');
    const b = clusterDirOf('bench');
    expect(a).toBe(path.join(repoRoot, '.cluster', 'ci-check'));
    expect(a).not.toBe(b);
    expect(a).not.toBe(clusterDirOf(defaultClusterName));
  });
});
