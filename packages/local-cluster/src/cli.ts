// `npm run cluster:up [-- --real-node] [--cluster=NAME]` / `npm run cluster:down [-- --cluster=NAME]`.
import { parseCliArgs } from './cli-args.ts';

const command = process.argv[2];
try {
  if (command !== 'up' && command !== 'down') {
    console.error('usage: cli.ts up [--real-node] [--cluster=NAME] | down [--cluster=NAME]');
    process.exitCode = 2;
  } else {
    const args = parseCliArgs(process.argv.slice(3), command === 'up' ? ['--cluster', '--real-node'] : ['--cluster']);
    // The cluster's name decides its paths when paths.ts loads: set it before loading the cluster code.
    if (args.cluster !== undefined) process.env.CLONESET_SUITE_CLUSTER_NAME = args.cluster;
    const { startCluster, stopCluster } = await import('./cluster.ts');
    const { kubeconfigPath } = await import('./paths.ts');
    if (command === 'up') {
      await startCluster(args.realNode ? { realNode: true } : {});
      console.log(`kubeconfig: ${kubeconfigPath}\n  kubectl --kubeconfig ${kubeconfigPath} get nodes`);
    } else {
      await stopCluster();
    }
  }
} catch (err) {
  console.error(`[local-cluster] ${(err as Error).message}`);
  process.exitCode = 1;
}
