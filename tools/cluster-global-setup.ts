// vitest global setup for the cluster suites: bring the local cluster up (or reuse it, or
// use E2E_KUBECONFIG), install the CRDs, and tear the cluster down afterwards only if this run
// started it. The CloneSet CRD serves v1alpha1 only, so no read needs a conversion webhook; the
// suite that opts in to v1beta1 runs its own converter.
import path from 'node:path';
import { kubectl, repoRoot, startCluster, stopCluster, testKubeconfigPath, usingExternalCluster } from '@cloneset-suite/local-cluster';
import { installCrds } from '../apps/controller-manager/src/local-install.ts';

let startedHere = false;

export async function setup(): Promise<void> {
  const handle = await startCluster();
  startedHere = handle.started;
  if (!usingExternalCluster()) {
    // `npm start` leaves URL-mode webhooks (failurePolicy Fail) behind when it stops; with no
    // manager listening they would refuse every CloneSet the suites create.
    const removed = await kubectl(['delete', 'mutatingwebhookconfiguration,validatingwebhookconfiguration', 'cloneset-suite', '--ignore-not-found']);
    if (removed.trim()) console.log(`[tests] removed the local npm start webhook configurations (restart npm start to restore them)`);
    const crds = await installCrds((args, input) => kubectl(args, input), path.join(repoRoot, 'crds'));
    if (crds.notice) console.log(`[tests] ${crds.notice}`);
  }
  process.env.E2E_KUBECONFIG_RESOLVED = testKubeconfigPath();
  console.log(`[tests] cluster suites use ${handle.kubeconfigPath}${handle.started ? ' (started for this run)' : ''}`);
}

export async function teardown(): Promise<void> {
  if (startedHere && process.env.CLONESET_SUITE_KEEP_CLUSTER !== '1') await stopCluster();
}
