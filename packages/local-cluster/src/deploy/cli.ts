// `npm run deploy:local -- --cluster=NAME [--kustomize]`.
import { parseCliArgs } from '../cli-args.ts';

try {
  const args = parseCliArgs(process.argv.slice(2), ['--cluster', '--kustomize']);
  if (args.cluster === undefined) throw new Error('--cluster=NAME is required: the release gets a local cluster of its own, beside the dev cluster');
  // The cluster's name decides its paths when paths.ts loads: set it before loading the rest.
  process.env.CLONESET_SUITE_CLUSTER_NAME = args.cluster;
  const { deployLocal } = await import('./deploy-local.ts');
  const { kubeconfigPath, image } = await deployLocal({ installer: args.kustomize ? 'kustomize' : 'helm' });
  console.log(`deployed ${image}\nkubeconfig: ${kubeconfigPath}\n  kubectl --kubeconfig ${kubeconfigPath} get pods -n cloneset-suite-system`);
} catch (err) {
  console.error(`[deploy-local] ${(err as Error).message}`);
  process.exitCode = 1;
}
