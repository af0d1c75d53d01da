// Shared vitest settings: resolve workspace packages to their TypeScript sources
// (the "source" export condition) so tests never need a build step.
import { defineConfig } from 'vitest/config';

export const sourceConditions = ['source', 'import', 'module', 'node', 'default'];

export function packageTestConfig(options: { integration?: boolean } = {}) {
  return defineConfig({
    resolve: { conditions: sourceConditions },
    ssr: { resolve: { conditions: sourceConditions, externalConditions: ['source'] } },
    test: options.integration
      ? {
          include: ['test/integration/**/*.test.ts'],
          globalSetup: [
            new URL('./tools/print-node-version.ts', import.meta.url).pathname,
            new URL('./tools/cluster-global-setup.ts', import.meta.url).pathname,
          ],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        }
      : {
          include: ['test/unit/**/*.test.ts', 'src/**/*.test.ts'],
          globalSetup: [new URL('./tools/print-node-version.ts', import.meta.url).pathname],
        },
  });
}
