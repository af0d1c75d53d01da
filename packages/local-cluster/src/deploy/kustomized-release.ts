// The kustomize install of the local release: the output of `kubectl kustomize` on the base,
// given what the Helm release gets from its values (release-values.ts) and its post-renderer
// (apiserver-access.ts), so both installs run the same pods on the real node.
import { pointPodAtApiserver, type ApiserverAddress } from './apiserver-access.ts';
import type { ReleaseValues } from './release-values.ts';
import { rewriteDeployments } from './rewrite-deployments.ts';

/** The image name the kustomize base runs (its `images:` entry), whatever its tag. */
export const BASE_IMAGE = 'cloneset-suite/controller-manager';

/** `repo[:tag][@digest]` without tag and digest (a registry port is not a tag). */
function imageName(ref: string): string {
  const name = ref.split('@')[0] ?? ref;
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? name.slice(0, colon) : name;
}

/**
 * Rewrites the base's rendered manifests into the local release: every Deployment running
 * BASE_IMAGE gets the release's replicas, image, pull policy, node selector and tolerations, and
 * dials the apiserver at `address`. Throws when no Deployment runs BASE_IMAGE.
 */
export function kustomizedRelease(manifests: string, values: ReleaseValues, address: ApiserverAddress): string {
  let managers = 0;
  const rewritten = rewriteDeployments(manifests, (deployment) => {
    const spec = deployment.spec;
    const pod = spec?.template?.spec;
    const containers = (pod?.containers ?? []).filter((c) => c.image !== undefined && imageName(c.image) === BASE_IMAGE);
    if (spec === undefined || pod === undefined || containers.length === 0) return;
    managers++;
    spec.replicas = values.replicaCount;
    for (const container of containers) {
      container.image = `${values.image.repository}:${values.image.tag}`;
      container.imagePullPolicy = values.image.pullPolicy;
    }
    pod.nodeSelector = { ...pod.nodeSelector, ...values.nodeSelector };
    const replaced = (t: { key?: string; effect?: string }): boolean => values.tolerations.some((v) => v.key === t.key && v.effect === t.effect);
    pod.tolerations = [...(pod.tolerations ?? []).filter((t) => !replaced(t)), ...values.tolerations];
    pointPodAtApiserver(pod, address);
  });
  if (managers === 0) throw new Error(`the kustomize base renders no Deployment running the image ${BASE_IMAGE}`);
  return rewritten;
}
