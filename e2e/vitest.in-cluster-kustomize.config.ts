// `npm run test:in-cluster:kustomize` (not in `npm test`): the in-cluster suite's first scenario
// (create, scale, in-place, ReCreate and a leader lost mid-rollout, on the real node) against the
// kustomize base, installed by `deploy:local --kustomize` on a cluster of its own.
import { inClusterConfig } from './vitest.in-cluster.config.ts';

export default inClusterConfig({
  include: ['test/in-cluster/cloneset-on-real-node.in-cluster.ts'],
  setupFile: './test/in-cluster/global-setup-kustomize.ts',
  script: 'test:in-cluster:kustomize',
});
