// `npm run test:in-cluster` (the last phase of `npm test`): the suite against the Helm release on
// the local cluster's real node (not part of the cluster suites: it builds the image and brings up
// a cluster of its own).
import { defineConfig } from 'vitest/config';

// The real node runs containerd, runc and a kubelet, and buildah builds the image: root only.
// CI runs as root; elsewhere the phase says so and runs nothing, as the image test does.
const isRoot = process.getuid?.() === 0;
if (!isRoot) {
  console.warn('[in-cluster] not root: the in-cluster suite needs root (the real node runs containerd, runc and a kubelet; buildah builds the image) and runs nothing here. Run `npm run test:in-cluster` as root.');
}

export default defineConfig({
  test: {
    include: isRoot ? ['test/in-cluster/**/*.in-cluster.ts'] : [],
    passWithNoTests: !isRoot,
    globalSetup: isRoot ? ['../tools/print-node-version.ts', './test/in-cluster/global-setup.ts'] : [],
    testTimeout: 180_000,
    hookTimeout: 1_200_000,
    fileParallelism: false,
    // Each step builds on the one before: after a failure the rest only time out.
    bail: 1,
  },
});
