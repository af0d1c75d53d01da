// What the in-cluster global setups share: `deploy:local` on a cluster of the suite's own (named
// by CLONESET_SUITE_CLUSTER_NAME, else the suite's default), then every kubectl of the suite goes
// to it through E2E_KUBECONFIG. The cluster is kept for the next run (cluster:down -- --cluster=NAME).
import type { Installer } from '@cloneset-suite/local-cluster/deploy';

export async function deployForSuite(defaultCluster: string, installer: Installer): Promise<void> {
  const name = process.env.CLONESET_SUITE_CLUSTER_NAME;
  // Never the dev cluster: the release would replace a running `npm start`'s webhooks there.
  if (name === undefined || name === 'cloneset-suite') process.env.CLONESET_SUITE_CLUSTER_NAME = defaultCluster;
  delete process.env.E2E_KUBECONFIG;
  // Loaded only now: the cluster's name decides its paths when the package loads.
  const { deployLocal } = await import('@cloneset-suite/local-cluster/deploy');
  const { kubeconfigPath, image } = await deployLocal({ installer });
  process.env.E2E_KUBECONFIG = kubeconfigPath;
  console.log(`[in-cluster] ${image} installed by ${installer}; kubeconfig ${kubeconfigPath}`);
}
