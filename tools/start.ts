// `npm start`: bring up the local cluster. The controller-manager is wired in here when it lands.
import { kubeconfigPath, startCluster } from '@cloneset-suite/local-cluster';

await startCluster();
console.log(`\nThe local cluster is up: export KUBECONFIG=${kubeconfigPath}\n` +
  'The controller-manager is not wired into `npm start` yet; `npm run cluster:down` stops the cluster.');
