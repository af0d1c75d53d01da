// The in-cluster suite's global setup: the Helm release on the cluster in-cluster (or
// CLONESET_SUITE_CLUSTER_NAME).
import { deployForSuite } from './deploy-for-suite.ts';

export const setup = (): Promise<void> => deployForSuite('in-cluster', 'helm');
