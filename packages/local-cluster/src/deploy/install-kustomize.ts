// `deploy:local --kustomize`: the kustomize base, rendered by `kubectl kustomize`, rewritten into
// the local release (kustomized-release.ts) and applied as `kubectl apply -k` applies it (the root
// README's install), with the rewritten manifests kept in the cluster's directory to read.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { clusterDir, kubeconfigPath, repoRoot } from '../paths.ts';
import { clusterApiserverAddress, log, runShown, waitForRollout } from './deploy-shell.ts';
import { kustomizedRelease } from './kustomized-release.ts';
import { RELEASE_NAMESPACE, releaseValues, splitImageRef } from './release-values.ts';

const baseDir = path.join(repoRoot, 'deploy', 'kustomize', 'base');
/** The manifests the last kustomize install applied. */
export const kustomizeManifestsPath = path.join(clusterDir, 'kustomize-release.yaml');

/** Applies the kustomize base running `image` (already in the real node's containerd) and waits for the rollout. */
export async function installKustomizeBase(image: string): Promise<void> {
  const rendered = await runShown('kubectl', ['kustomize', baseDir]);
  await writeFile(kustomizeManifestsPath, kustomizedRelease(rendered, releaseValues(splitImageRef(image)), await clusterApiserverAddress()));
  log(`applying the kustomize base as ${image} into ${RELEASE_NAMESPACE} (${kustomizeManifestsPath})...`);
  await runShown('kubectl', ['--kubeconfig', kubeconfigPath, 'apply', '-f', kustomizeManifestsPath]);
  await waitForRollout();
}
