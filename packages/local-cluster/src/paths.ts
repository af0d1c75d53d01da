// Where the local cluster keeps its files: the kubeconfig inside the repo (git-ignored),
// binaries and kwok's work directory in a cache outside it.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoRoot(start: string): string {
  let dir = start;
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { workspaces?: unknown }).workspaces) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no workspace root above ${start}`);
    dir = parent;
  }
}

export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = findRepoRoot(packageRoot);
export const defaultClusterName = 'cloneset-suite';
export const clusterName = process.env.CLONESET_SUITE_CLUSTER_NAME ?? defaultClusterName;
/**
 * The cluster's own files in the repo: `.cluster/` for the default cluster, `.cluster/<name>/`
 * for any other, so two clusters of one checkout (a bench beside a test run) never share a
 * kubeconfig: a run would otherwise reuse the other's cluster and die when it is deleted.
 */
export const clusterDir = clusterDirOf(clusterName);
/** The local cluster's kubeconfig (admin credentials). */
export const kubeconfigPath = path.join(clusterDir, 'kubeconfig');
export const cacheRoot =
  process.env.CLONESET_SUITE_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'cloneset-suite');
export const kwokWorkdir = path.join(cacheRoot, 'kwok');
/** Where kwokctl keeps a cluster's CA (ca.crt, ca.key) and admin pair (admin.crt, admin.key). */
export const pkiDirOf = (name: string): string => path.join(kwokWorkdir, 'clusters', name, 'pki');

export function clusterDirOf(name: string): string {
  const base = path.join(repoRoot, '.cluster');
  return name === defaultClusterName ? base : path.join(base, name);
}
export const stagesDir = path.join(packageRoot, 'stages');
export const buildScript = path.join(packageRoot, 'scripts', 'build-binaries.sh');

/** The kubeconfig the cluster test suites use: E2E_KUBECONFIG when given, else the local cluster's. */
export function testKubeconfigPath(): string {
  return process.env.E2E_KUBECONFIG ?? kubeconfigPath;
}

/** True when the suites run against a cluster the user gave (E2E_KUBECONFIG), not the local one. */
export function usingExternalCluster(): boolean {
  return process.env.E2E_KUBECONFIG !== undefined && process.env.E2E_KUBECONFIG !== '';
}
