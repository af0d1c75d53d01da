// One vitest run for every suite that needs a cluster (integration + e2e), sharing one
// cluster brought up by the global setup. Files run one after another: they share nodes.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/integration/**/*.test.ts', 'apps/*/test/integration/**/*.test.ts', 'e2e/test/**/*.test.ts'],
    globalSetup: ['./tools/print-node-version.ts', './tools/cluster-global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
