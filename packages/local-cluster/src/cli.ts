// `npm run cluster:up` / `npm run cluster:down`.
import { startCluster, stopCluster } from './cluster.ts';
import { kubeconfigPath } from './paths.ts';

const command = process.argv[2];
try {
  if (command === 'up') {
    await startCluster();
    console.log(`kubeconfig: ${kubeconfigPath}\n  kubectl --kubeconfig ${kubeconfigPath} get nodes`);
  } else if (command === 'down') {
    await stopCluster();
  } else {
    console.error('usage: cli.ts up|down');
    process.exitCode = 2;
  }
} catch (err) {
  console.error(`[local-cluster] ${(err as Error).message}`);
  process.exitCode = 1;
}
