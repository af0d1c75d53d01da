// `npm run deploy:local -- --cluster=NAME`: the controller-manager as users run it, on a local
// cluster of its own. Builds the image, brings up the cluster with its real node, imports the
// image into the node's containerd, installs the Helm chart (or, with `--kustomize`, the
// kustomize base) and waits for the rollout. The in-cluster suite upgrades the Helm release with
// installRelease and retagImage.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster } from '../cluster.ts';
import { OWNER_REFERENCES_ENFORCEMENT } from '../kwok-config.ts';
import { cacheRoot, clusterDir, clusterName, kubeconfigPath, repoRoot } from '../paths.ts';
import { importImage, tagImage } from '../real-node/real-node.ts';
import { clusterApiserverAddress, log, runShown, waitForRollout } from './deploy-shell.ts';
import { installKustomizeBase } from './install-kustomize.ts';
import { RELEASE_NAME, RELEASE_NAMESPACE, contentTag, releaseValues, splitImageRef } from './release-values.ts';

const postRenderer = fileURLToPath(new URL('./post-render.ts', import.meta.url));
const chartDir = path.join(repoRoot, 'deploy', 'helm', 'cloneset-suite');
const imageRef = process.env.IMAGE ?? 'localhost/cloneset-suite/controller-manager:local';

export interface Deployed {
  kubeconfigPath: string;
  image: string;
}

/** How the release is installed: the Helm chart, or the kustomize base (`--kustomize`). */
export type Installer = 'helm' | 'kustomize';

export async function deployLocal({ installer = 'helm' }: { installer?: Installer } = {}): Promise<Deployed> {
  log('building the image (npm run image:build)...');
  // An archive of the cluster's own: another cluster's deploy may be building at the same time.
  const imageTar = path.join(cacheRoot, 'image', `${clusterName}.tar`);
  const archive = (await runShown('bash', [path.join(repoRoot, 'packages', 'image', 'scripts', 'build-image.sh')], { ...process.env, IMAGE: imageRef, IMAGE_TAR: imageTar })).trim().split('\n').pop() ?? '';
  // As on clusters that enforce it (OpenShift): an RBAC gap for blockOwnerDeletion shows as a 403.
  await startCluster({ realNode: true, extraAdmissionPlugins: [OWNER_REFERENCES_ENFORCEMENT], log: (line) => log(line) });
  log(`importing ${archive} into the real node's containerd...`);
  const image = await importImage(clusterName, archive, imageRef, contentTag);
  await (installer === 'kustomize' ? installKustomizeBase(image) : installRelease(image));
  return { kubeconfigPath, image };
}

/**
 * `helm upgrade --install` of the chart with the local release's values, running `image` (already
 * in the real node's containerd); waits for the manager's rollout unless `wait` is false.
 */
export async function installRelease(image: string, { wait = true }: { wait?: boolean } = {}): Promise<void> {
  const helm = (await runShown('bash', [path.join(repoRoot, 'apps', 'controller-manager', 'scripts', 'helm.sh'), '--build'])).trim();
  const apiserver = await clusterApiserverAddress();
  const valuesFile = path.join(clusterDir, 'release-values.json');
  await writeFile(valuesFile, `${JSON.stringify(releaseValues(splitImageRef(image)), null, 2)}\n`);
  log(`installing the chart as ${image} into ${RELEASE_NAMESPACE}...`);
  await runShown(helm, [
    'upgrade', '--install', RELEASE_NAME, chartDir,
    '--kubeconfig', kubeconfigPath,
    '--namespace', RELEASE_NAMESPACE, '--create-namespace',
    '--values', valuesFile,
    '--post-renderer', process.execPath,
    '--post-renderer-args', postRenderer,
    '--post-renderer-args', apiserver.ip,
    '--post-renderer-args', String(apiserver.port),
  ]);
  if (wait) await waitForRollout();
}

/** Tags the image `image` already in the real node's containerd as `<repository>:<tag>` too; returns that reference. */
export async function retagImage(image: string, tag: string): Promise<string> {
  return tagImage(clusterName, image, `${splitImageRef(image).repository}:${tag}`);
}
