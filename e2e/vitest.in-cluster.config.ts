// `npm run test:in-cluster` (the last phase of `npm test`): the suite against the Helm release on
// the local cluster's real node (not part of the cluster suites: it builds the image and brings up
// a cluster of its own). vitest.in-cluster-kustomize.config.ts runs its first scenario against
// the kustomize base.
import { defineConfig, type ViteUserConfig } from 'vitest/config';

/** The in-cluster suite's config: `include` (under test/in-cluster/) after the global setup `setupFile` deployed the release. */
export function inClusterConfig({ include, setupFile, script }: { include: string[]; setupFile: string; script: string }): ViteUserConfig {
  // The real node runs containerd, runc and a kubelet, and buildah builds the image: root only.
  // CI runs as root; elsewhere the phase says so and runs nothing, as the image test does.
  const isRoot = process.getuid?.() === 0;
  if (!isRoot) {
    console.warn(`[in-cluster] not root: the in-cluster suite needs root (the real node runs containerd, runc and a kubelet; buildah builds the image) and runs nothing here. Run \`npm run ${script}\` as root.`);
  }
  return defineConfig({
    test: {
      include: isRoot ? include : [],
      passWithNoTests: !isRoot,
      globalSetup: isRoot ? ['../tools/print-node-version.ts', setupFile] : [],
      testTimeout: 180_000,
      hookTimeout: 1_200_000,
      fileParallelism: false,
      // Each step builds on the one before: after a failure the rest only time out.
      bail: 1,
    },
  });
}

export default inClusterConfig({ include: ['test/in-cluster/**/*.in-cluster.ts'], setupFile: './test/in-cluster/global-setup.ts', script: 'test:in-cluster' });
