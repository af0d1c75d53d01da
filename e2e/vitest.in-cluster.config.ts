// `npm run test:in-cluster`: the suite against the Helm release on the local cluster's real node
// (not part of the cluster suites: it builds the image and brings up a cluster of its own).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/in-cluster/**/*.in-cluster.ts'],
    globalSetup: ['../tools/print-node-version.ts', './test/in-cluster/global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 1_200_000,
    fileParallelism: false,
    // Each step builds on the one before: after a failure the rest only time out.
    bail: 1,
  },
});
