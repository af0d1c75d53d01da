// vitest global setup for the cluster suites: bring the local cluster up (or reuse it, or
// use E2E_KUBECONFIG), serve the CloneSet conversion webhook for the run, and tear the cluster
// down afterwards only if this run started it.
import { kubectl, repoRoot, startCluster, stopCluster, testKubeconfigPath, usingExternalCluster } from '@cloneset-suite/local-cluster';
import { startSessionConversion, type SessionConversion } from '../apps/controller-manager/test/support/session-conversion.ts';

let startedHere = false;
let conversion: SessionConversion | undefined;

export async function setup(): Promise<void> {
  const handle = await startCluster();
  startedHere = handle.started;
  if (!usingExternalCluster()) {
    // `npm start` leaves URL-mode webhooks (failurePolicy Fail) behind when it stops; with no
    // manager listening they would refuse every CloneSet the suites create.
    const removed = await kubectl(['delete', 'mutatingwebhookconfiguration,validatingwebhookconfiguration', 'cloneset-suite', '--ignore-not-found']);
    if (removed.trim()) console.log(`[tests] removed the local npm start webhook configurations (restart npm start to restore them)`);
    // On a cluster the user gave, the deployed manager converts; here nothing would.
    conversion = await startSessionConversion((args, input) => kubectl(args, input), repoRoot);
  }
  process.env.E2E_KUBECONFIG_RESOLVED = testKubeconfigPath();
  console.log(`[tests] cluster suites use ${handle.kubeconfigPath}${handle.started ? ' (started for this run)' : ''}`);
}

export async function teardown(): Promise<void> {
  await conversion?.stop();
  if (startedHere && process.env.CLONESET_SUITE_KEEP_CLUSTER !== '1') await stopCluster();
}
