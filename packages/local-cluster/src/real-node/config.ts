// The real node's configuration files, decided from its layout alone: containerd's (CRI on, its
// own root, state and socket), the CNI network its pods get addresses from, and the kubelet's.
// Everything is per cluster, so a real node of another local cluster on this machine never shares
// a socket, a bridge, a subnet or a port with it.
import { stringify } from 'yaml';

/** The real node's name: kwok's fake nodes are kwok-node-<n>. */
export const REAL_NODE_NAME = 'real-node-0';
/** Label selecting the real node (deploy tests set it as a nodeSelector). */
export const REAL_NODE_LABEL = 'cloneset-suite.io/real-node';
/**
 * Taint on the real node: pods that do not tolerate it (the scale tests' and the simulated
 * kubelet's) stay on the kwok nodes, where thousands of pods cost nothing.
 */
export const REAL_NODE_TAINT = { key: 'cloneset-suite.io/real-node', value: 'true', effect: 'NoSchedule' } as const;

/** Images the real node runs without a registry: built here and imported into its containerd. */
export const PAUSE_IMAGE = 'localhost/cloneset-suite/pause:1';
/** busybox (Debian's static build) under two tags whose image IDs differ, for in-place image updates. */
export const TEST_IMAGES = ['localhost/cloneset-suite/busybox:1', 'localhost/cloneset-suite/busybox:2'] as const;

export interface RealNodeLayout {
  /** Directory holding everything of this node (containerd's and the kubelet's state, configs, logs). */
  dir: string;
  /** /24 of the node's pods, e.g. 10.244.7.0/24 (outside kwok's pod CIDR and the Service CIDR). */
  podSubnet: string;
  /** Linux bridge the pods are attached to (at most 15 characters). */
  bridge: string;
  /** The kubelet's API port (its healthz and read-only ports are off). */
  kubeletPort: number;
  /** The kubeconfig the kubelet registers and reports with. */
  kubeconfig: string;
  /** The cluster CA: the kubelet accepts client certificates it signed (the apiserver's). */
  clientCAFile: string;
}

export const containerdSocket = (layout: RealNodeLayout): string => `${layout.dir}/containerd/containerd.sock`;
export const cniConfDir = (layout: RealNodeLayout): string => `${layout.dir}/cni/net.d`;
/** Where Debian's containernetworking-plugins puts bridge, host-local and loopback. */
export const CNI_BIN_DIR = '/usr/lib/cni';

/** A subnet and bridge name of the cluster's own: the same cluster name always gets the same ones. */
export function networkOf(clusterName: string): { podSubnet: string; bridge: string } {
  let hash = 2166136261;
  for (const ch of clusterName) hash = Math.imul(hash ^ (ch.codePointAt(0) ?? 0), 16777619) >>> 0;
  const third = hash % 250;
  return { podSubnet: `10.244.${third}.0/24`, bridge: `csr${third}` };
}

export function containerdConfig(layout: RealNodeLayout): string {
  return `version = 2
root = "${layout.dir}/containerd/root"
state = "${layout.dir}/containerd/state"

[grpc]
  address = "${containerdSocket(layout)}"

[ttrpc]
  address = "${layout.dir}/containerd/containerd.sock.ttrpc"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  # The kubelet asks for oom_score_adj down to -998 (its sandboxes, critical pods); a machine whose
  # root may not lower its own score (a VM's or a container's init set it) then fails every
  # sandbox in runc. Clamped to containerd's own score instead, as for rootless containerd.
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${CNI_BIN_DIR}"
    conf_dir = "${cniConfDir(layout)}"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        # runc's state of its own: another containerd on the machine keeps its own under /run/containerd.
        Root = "${layout.dir}/runc"
`;
}

export function cniConfig(layout: RealNodeLayout): string {
  return `${JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: layout.bridge,
      plugins: [
        {
          type: 'bridge',
          bridge: layout.bridge,
          isGateway: true,
          ipMasq: true,
          hairpinMode: true,
          ipam: { type: 'host-local', ranges: [[{ subnet: layout.podSubnet }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: `${layout.dir}/cni/ipam` },
        },
        { type: 'portmap', capabilities: { portMappings: true } },
      ],
    },
    null,
    2,
  )}\n`;
}

export function kubeletConfig(layout: RealNodeLayout): string {
  return stringify({
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    // The apiserver's client certificate (the cluster's admin) is checked by the cluster CA;
    // every other caller is asked about through TokenReview and SubjectAccessReview.
    authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: layout.clientCAFile } },
    authorization: { mode: 'Webhook' },
    port: layout.kubeletPort,
    readOnlyPort: 0,
    healthzPort: 0,
    containerRuntimeEndpoint: `unix://${containerdSocket(layout)}`,
    cgroupDriver: 'cgroupfs',
    // Machines here may have cgroup v1 only (Kubernetes v1.35 made the kubelet refuse it by default).
    failCgroupV1: false,
    failSwapOn: false,
    // No QoS cgroup hierarchy of its own: the machine may not let it make one beside its own.
    cgroupsPerQOS: false,
    enforceNodeAllocatable: [],
    registerWithTaints: [REAL_NODE_TAINT],
    // A test machine's disk and memory run low under other tests: a pod is never evicted for it.
    evictionHard: { 'memory.available': '0%', 'nodefs.available': '0%', 'imagefs.available': '0%' },
    imageGCHighThresholdPercent: 100,
    serializeImagePulls: false,
    // Pods resolve through the machine's resolver: the local cluster runs no cluster DNS.
    resolvConf: '/etc/resolv.conf',
    maxPods: 110,
  });
}
