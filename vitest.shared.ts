// Shared vitest settings. Workspace packages export their TypeScript sources directly
// (Node 24 strips types), so tests never need a build step.
import { defineConfig } from 'vitest/config';

export function packageTestConfig(options: { integration?: boolean } = {}) {
  return defineConfig({
    test: options.integration
      ? {
          include: ['test/integration/**/*.test.ts'],
          globalSetup: [
            new URL('./tools/print-node-version.ts', import.meta.url).pathname,
            new URL('./tools/cluster-global-setup.ts', import.meta.url).pathname,
          ],
          testTimeout: 180_000,
          hookTimeout: 900_000,
          fileParallelism: false,
        }
      : {
          include: ['test/unit/**/*.test.ts', 'src/**/*.test.ts'],
          // Property tests and simulations run thousands of cases; CI machines have 2 busy cores.
          testTimeout: 60_000,
          globalSetup: [new URL('./tools/print-node-version.ts', import.meta.url).pathname],
        },
  });
}
