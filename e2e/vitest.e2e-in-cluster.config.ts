// `npm run test:e2e:in-cluster`: the cluster-agnostic e2e suite, the files the kind workflow
// runs (every e2e/test/*.e2e.test.ts but the chaos scenarios, which need local processes),
// against the Helm release `npm run deploy:local` installs on a local cluster with a real node.
// The in-cluster suite's global setup does the deploy and points E2E_KUBECONFIG at it.
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/*.e2e.test.ts'],
    exclude: [...configDefaults.exclude, 'test/chaos-*'],
    globalSetup: ['../tools/print-node-version.ts', './test/in-cluster/global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 1_200_000,
    fileParallelism: false,
  },
});
