// The one pass over rendered manifests (helm template, kubectl kustomize) that the local release's
// rewrites share: every Deployment is handed to the rewrite, every other object passes unchanged.
import { parseAllDocuments, stringify } from 'yaml';

export interface Container {
  name: string;
  image?: string;
  imagePullPolicy?: string;
  env?: { name: string; value?: string }[];
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

export interface PodSpec {
  hostAliases?: { ip: string; hostnames: string[] }[];
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  containers?: Container[];
}

export interface Deployment {
  kind: 'Deployment';
  metadata?: { name?: string };
  spec?: { replicas?: number; template?: { spec?: PodSpec } };
}

/** Parses `manifests`, rewrites each Deployment in place and prints them all again; throws when they are not YAML. */
export function rewriteDeployments(manifests: string, rewrite: (deployment: Deployment) => void): string {
  const docs = parseAllDocuments(manifests);
  for (const doc of docs) if (doc.errors.length > 0) throw new Error(`the rendered manifests are not YAML: ${doc.errors[0]?.message ?? ''}`);
  return docs
    .map((doc) => doc.toJS() as unknown)
    .filter((obj) => obj !== null && obj !== undefined)
    .map((obj) => {
      if ((obj as { kind?: unknown }).kind === 'Deployment') rewrite(obj as Deployment);
      return `---\n${stringify(obj)}`;
    })
    .join('');
}
