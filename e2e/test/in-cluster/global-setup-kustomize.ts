// The global setup of `npm run test:in-cluster:kustomize`: the kustomize base on the cluster
// in-cluster-kustomize (or CLONESET_SUITE_CLUSTER_NAME).
import { deployForSuite } from './deploy-for-suite.ts';

export const setup = (): Promise<void> => deployForSuite('in-cluster-kustomize', 'kustomize');
