// The Helm values of the local release: the chart's own defaults, plus what this cluster needs.
import { REAL_NODE_LABEL, REAL_NODE_TAINT } from '../real-node/config.ts';

export const RELEASE_NAME = 'cloneset-suite';
export const RELEASE_NAMESPACE = 'cloneset-suite-system';
/** The chart's Deployment (its object names are fixed). */
export const MANAGER_DEPLOYMENT = 'cloneset-suite-controller-manager';

export interface ImageRef {
  repository: string;
  tag: string;
}

/** Splits `repo[:tag]` (a registry port is not a tag); throws naming the image when there is no tag. */
export function splitImageRef(ref: string): ImageRef {
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  if (colon <= slash || colon === ref.length - 1) throw new Error(`image ${JSON.stringify(ref)} has no tag`);
  return { repository: ref.slice(0, colon), tag: ref.slice(colon + 1) };
}

/** The chart values the local release sets; the kustomize install applies the same ones to the base's manifests. */
export interface ReleaseValues {
  replicaCount: number;
  image: ImageRef & { pullPolicy: 'Never' };
  nodeSelector: Record<string, string>;
  tolerations: { key: string; operator: 'Equal'; value: string; effect: string }[];
}

/**
 * Two replicas on the real node: its taint tolerated and its label selected (the kwok nodes run
 * no containers). The image was imported into the node's containerd and is never pulled. The
 * chart's topology spread counts only nodes a pod may select and tolerate, so the one real node
 * is one domain and both replicas fit on it without relaxing `nodeSpread`.
 */
export function releaseValues(image: ImageRef): ReleaseValues {
  return {
    replicaCount: 2,
    image: { repository: image.repository, tag: image.tag, pullPolicy: 'Never' },
    nodeSelector: { [REAL_NODE_LABEL]: REAL_NODE_TAINT.value },
    tolerations: [{ key: REAL_NODE_TAINT.key, operator: 'Equal', value: REAL_NODE_TAINT.value, effect: REAL_NODE_TAINT.effect }],
  };
}

/** A tag naming an image's content (its manifest digest), e.g. local-0123456789ab. */
export function contentTag(manifestDigest: string): string {
  const m = /^sha256:([0-9a-f]{64})$/.exec(manifestDigest);
  if (!m?.[1]) throw new Error(`${JSON.stringify(manifestDigest)} is not a sha256 digest`);
  return `local-${m[1].slice(0, 12)}`;
}
