// `npm run cluster:up [-- --real-node]` / `npm run cluster:down`.
import { startCluster, stopCluster } from './cluster.ts';
import { kubeconfigPath } from './paths.ts';

const command = process.argv[2];
try {
  if (command === 'up') {
    await startCluster(process.argv.includes('--real-node') ? { realNode: true } : {});
    console.log(`kubeconfig: ${kubeconfigPath}\n  kubectl --kubeconfig ${kubeconfigPath} get nodes`);
  } else if (command === 'down') {
    await stopCluster();
  } else {
    console.error('usage: cli.ts up [--real-node] | down');
    process.exitCode = 2;
  }
} catch (err) {
  console.error(`[local-cluster] ${(err as Error).message}`);
  process.exitCode = 1;
}
