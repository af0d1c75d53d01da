// The in-cluster suite's global setup: `npm run deploy:local` on a cluster of its own (named by
// CLONESET_SUITE_CLUSTER_NAME, else in-cluster), then every kubectl of the suite goes to it
// through E2E_KUBECONFIG. The cluster is kept for the next run (cluster:down -- --cluster=NAME).
const IN_CLUSTER_DEFAULT = 'in-cluster';

export async function setup(): Promise<void> {
  const name = process.env.CLONESET_SUITE_CLUSTER_NAME;
  // Never the dev cluster: the release would replace a running `npm start`'s webhooks there.
  if (name === undefined || name === 'cloneset-suite') process.env.CLONESET_SUITE_CLUSTER_NAME = IN_CLUSTER_DEFAULT;
  delete process.env.E2E_KUBECONFIG;
  // Loaded only now: the cluster's name decides its paths when the package loads.
  const { deployLocal } = await import('@cloneset-suite/local-cluster/deploy');
  const { kubeconfigPath, image } = await deployLocal();
  process.env.E2E_KUBECONFIG = kubeconfigPath;
  console.log(`[in-cluster] ${image} released; kubeconfig ${kubeconfigPath}`);
}
