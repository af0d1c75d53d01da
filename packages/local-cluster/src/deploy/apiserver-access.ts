// How the manager's pods on the real node reach the local apiserver. The kubelet points in-cluster
// clients at the kubernetes Service's ClusterIP, but the local cluster runs no kube-proxy (one
// would rewrite this machine's iptables for every cluster on it), and the apiserver's serving
// certificate, made by kwokctl, names kubernetes.default.svc, localhost and 127.0.0.1 but no
// Service IP. So the pods get kubernetes.default.svc as KUBERNETES_SERVICE_HOST (explicit env
// wins over the Service variables the kubelet adds), resolved by a hostAlias to the gateway of the
// node's pod bridge: the host, where the apiserver listens on every address.
import { rewriteDeployments, type PodSpec } from './rewrite-deployments.ts';

/** The name the apiserver's certificate covers that the pods dial. */
export const APISERVER_HOSTNAME = 'kubernetes.default.svc';

export interface ApiserverAddress {
  /** The host as seen from a pod on the bridge (the bridge's gateway). */
  ip: string;
  port: number;
}

/** The bridge's gateway: the first address of the node's pod subnet (the CNI bridge's isGateway). */
export function gatewayOf(podSubnet: string): string {
  const m = /^(\d{1,3}\.\d{1,3}\.\d{1,3})\.0\/24$/.exec(podSubnet);
  if (!m) throw new Error(`pod subnet ${JSON.stringify(podSubnet)} is not an IPv4 /24`);
  return `${m[1]}.1`;
}

/** The apiserver's port from the server URL of the cluster's kubeconfig. */
export function apiserverPort(serverUrl: string): number {
  const url = new URL(serverUrl);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (!Number.isInteger(port) || port <= 0) throw new Error(`kubeconfig server ${JSON.stringify(serverUrl)} has no port`);
  return port;
}

/** Points one pod template at the apiserver at `address`: the hostAlias and the two env variables, replacing earlier ones. */
export function pointPodAtApiserver(pod: PodSpec, address: ApiserverAddress): void {
  pod.hostAliases = [...(pod.hostAliases ?? []).filter((a) => !a.hostnames.includes(APISERVER_HOSTNAME)), { ip: address.ip, hostnames: [APISERVER_HOSTNAME] }];
  for (const container of pod.containers ?? []) {
    const env = (container.env ?? []).filter((e) => e.name !== 'KUBERNETES_SERVICE_HOST' && e.name !== 'KUBERNETES_SERVICE_PORT');
    container.env = [...env, { name: 'KUBERNETES_SERVICE_HOST', value: APISERVER_HOSTNAME }, { name: 'KUBERNETES_SERVICE_PORT', value: String(address.port) }];
  }
}

/** Rewrites rendered manifests: every Deployment's pods dial the apiserver at `address`. */
export function pointDeploymentsAtApiserver(manifests: string, address: ApiserverAddress): string {
  return rewriteDeployments(manifests, (deployment) => {
    const pod = deployment.spec?.template?.spec;
    if (pod !== undefined) pointPodAtApiserver(pod, address);
  });
}
