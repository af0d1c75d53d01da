// kwok's own settings (a KwokConfiguration, written beside the suite's Stages at cluster creation).
//  - Pod stages are played by 32 workers: with kwok's default of 4, under a few hundred pods that
//    queue, not the controllers, set the pace (a pod waited ~15 s between being scheduled and
//    turning Ready).
//  - Pod IPs come from one CIDR holding every pod the bench runs at once (50,000 under one
//    manager) with room for a rollout's replacements. kwok's IP pool does not stop at the end of
//    its CIDR: past it, it hands out the next addresses (10.0.1.x after 10.0.0.0/24), never takes
//    them back when their pods go, and after a kwok restart it no longer knows they are taken, so
//    two pods could share an IP.
//  - kwok plays only the nodes annotated kwok.x-k8s.io/node=fake: a real node (kubelet on
//    containerd) may join the cluster, and kwok must neither report its status nor play its pods.
//    kwokctl starts kwok with --manage-all-nodes=true whatever the options say, so its component
//    patch gives kwok the same two settings as flags (kwokctl's --extra-args cannot: it refuses a
//    value holding '=').
//  - The apiserver calls a real node's kubelet (kubectl logs, exec) with the cluster's admin
//    certificate, which the kubelet trusts through the cluster CA.
//  - Admission plugins beyond kube-apiserver's defaults (--enable-admission-plugins adds to them)
//    are an option of the cluster: the deploy:local cluster runs OwnerReferencesPermissionEnforcement
//    (on by default in OpenShift), so an owner reference with blockOwnerDeletion that the writer's
//    RBAC does not cover (update on the owner's finalizers subresource) is refused with 403.
//  - The apiserver dials admission and conversion webhooks at an endpoint of their Service, not
//    at its ClusterIP (--enable-aggregator-routing, which also covers webhooks): the local cluster
//    runs no kube-proxy, and a pod IP on the real node's bridge is reachable from the host.
// kwokctl writes every option of a given KwokConfiguration (zero values included), so the others
// are spelled out with kwok's defaults. kwok reads them only at creation: startCluster makes a
// cluster created with other settings again.

/** The annotation (key=value) of the nodes kwok plays. */
export const KWOK_NODE_SELECTOR = 'kwok.x-k8s.io/node=fake';

/** The simulated pods' CIDR: 65,534 addresses. */
export const POD_CIDR = '10.0.0.0/16';

/** How many pods the simulated kubelet can give distinct IPs of its CIDR at once. */
export function podAddresses(cidr: string): number {
  const m = /^(\d{1,3})(?:\.(\d{1,3})){3}\/(\d{1,2})$/.exec(cidr);
  const prefix = Number(m?.[3]);
  if (!m || prefix > 32) throw new Error(`${cidr} is not an IPv4 CIDR`);
  // The network and broadcast addresses are not handed out.
  return Math.max(0, 2 ** (32 - prefix) - 2);
}

/** The admission plugin that checks a writer may set blockOwnerDeletion on an owner reference. */
export const OWNER_REFERENCES_ENFORCEMENT = 'OwnerReferencesPermissionEnforcement';

export interface KwokConfigurationOptions {
  /** Admission plugins kube-apiserver runs besides its default ones. */
  extraAdmissionPlugins?: readonly string[];
}

/** kube-apiserver's --enable-admission-plugins value: plugin names, comma-separated. */
export function admissionPluginsArg(plugins: readonly string[]): string {
  for (const plugin of plugins) {
    if (!/^[A-Za-z][A-Za-z0-9.]*$/.test(plugin)) throw new Error(`extraAdmissionPlugins: ${JSON.stringify(plugin)} is not an admission plugin name`);
  }
  return [...new Set(plugins)].join(',');
}

/** `pkiDir`: the directory kwokctl keeps the cluster's CA and admin pair in (clusters/<name>/pki). */
export function kwokConfiguration(pkiDir: string, options: KwokConfigurationOptions = {}): string {
  const plugins = admissionPluginsArg(options.extraAdmissionPlugins ?? []);
  return `apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  cidr: ${POD_CIDR}
  manageAllNodes: false
  manageNodesWithAnnotationSelector: ${KWOK_NODE_SELECTOR}
  podPlayStageParallelism: 32
  nodePlayStageParallelism: 8
  nodeLeaseParallelism: 4
  podsOnNodeSyncParallelism: 1
  enableDebuggingHandlers: true
  enableProfilingHandler: true
  enableContentionProfiling: false
  enablePodsOnNodeSyncListPager: true
  enablePodsOnNodeSyncStreamWatch: false
---
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
componentsPatches:
- name: kwok-controller
  extraArgs:
  - key: manage-all-nodes
    value: "false"
  - key: manage-nodes-with-annotation-selector
    value: ${KWOK_NODE_SELECTOR}
- name: kube-apiserver
  extraArgs:
  # A real node's kubelet is reached at its InternalIP: its hostname resolves nowhere.
  - key: kubelet-preferred-address-types
    value: InternalIP,Hostname
  - key: kubelet-client-certificate
    value: ${pkiDir}/admin.crt
  - key: kubelet-client-key
    value: ${pkiDir}/admin.key
  - key: enable-aggregator-routing
    value: "true"${plugins === '' ? '' : `
  - key: enable-admission-plugins
    value: ${plugins}`}`;
}
