import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { KWOK_NODE_SELECTOR, POD_CIDR, kwokConfiguration } from '../../src/kwok-config.ts';
import { PAUSE_IMAGE, REAL_NODE_TAINT, cniConfig, containerdConfig, kubeletConfig, networkOf, type RealNodeLayout } from '../../src/real-node/config.ts';

const layout: RealNodeLayout = { dir: '/cache/real-node/c1', podSubnet: '10.244.3.0/24', bridge: 'csr3', kubeletPort: 41000, kubeconfig: '/repo/.cluster/c1/kubeconfig', clientCAFile: '/cache/kwok/clusters/c1/pki/ca.crt' };

describe('the real node', () => {
  it('gets a subnet and bridge of its cluster: stable, outside kwok\'s pod CIDR, a valid interface name', () => {
    for (const name of ['cloneset-suite', 'h-node', 'deploy', 'a'.repeat(60)]) {
      const net = networkOf(name);
      expect(networkOf(name)).toEqual(net);
      expect(net.podSubnet).toMatch(/^10\.244\.\d{1,3}\.0\/24$/);
      expect(net.podSubnet.startsWith(POD_CIDR.split('.').slice(0, 2).join('.'))).toBe(false);
      expect(net.bridge.length).toBeLessThanOrEqual(15);
    }
    expect(networkOf('one')).not.toEqual(networkOf('two'));
  });

  it("runs containerd with CRI on its own socket, runc state and CNI, sandboxes from the local pause image, oom scores clamped", () => {
    const config = containerdConfig(layout);
    expect(config).toContain('address = "/cache/real-node/c1/containerd/containerd.sock"');
    expect(config).toContain(`sandbox_image = "${PAUSE_IMAGE}"`);
    expect(config).toContain('restrict_oom_score_adj = true');
    expect(config).toContain('Root = "/cache/real-node/c1/runc"');
    expect(config).toContain('conf_dir = "/cache/real-node/c1/cni/net.d"');
    expect(config).not.toContain('disabled_plugins');
  });

  it('gives pods addresses of its subnet on its bridge', () => {
    const conf = JSON.parse(cniConfig(layout));
    expect(conf.plugins[0]).toMatchObject({ type: 'bridge', bridge: 'csr3', ipam: { type: 'host-local', ranges: [[{ subnet: '10.244.3.0/24' }]] } });
  });

  it('registers tainted, on its own port, with cgroup v1 allowed and no eviction for a busy test disk', () => {
    const config = parse(kubeletConfig(layout));
    expect(config).toMatchObject({
      kind: 'KubeletConfiguration',
      port: 41000,
      readOnlyPort: 0,
      healthzPort: 0,
      containerRuntimeEndpoint: 'unix:///cache/real-node/c1/containerd/containerd.sock',
      failCgroupV1: false,
      registerWithTaints: [REAL_NODE_TAINT],
      authentication: { anonymous: { enabled: false } },
      authorization: { mode: 'Webhook' },
    });
  });

  it("lets the apiserver in (kubectl logs, exec): it calls with the cluster's admin pair, which the kubelet checks by the cluster CA", () => {
    expect(parse(kubeletConfig(layout))).toMatchObject({ authentication: { x509: { clientCAFile: '/cache/kwok/clusters/c1/pki/ca.crt' } } });
    const kwokctl = parse(kwokConfiguration('/cache/kwok/clusters/c1/pki').split('\n---\n')[1] ?? '') as { componentsPatches: { name: string; extraArgs: { key: string; value: string }[] }[] };
    const apiserverArgs = kwokctl.componentsPatches.find((p) => p.name === 'kube-apiserver')?.extraArgs;
    expect(apiserverArgs).toEqual(
      expect.arrayContaining([
        { key: 'kubelet-client-certificate', value: '/cache/kwok/clusters/c1/pki/admin.crt' },
        { key: 'kubelet-client-key', value: '/cache/kwok/clusters/c1/pki/admin.key' },
      ]),
    );
  });

  it("has the apiserver dial webhooks at their Services' endpoints: no kube-proxy serves ClusterIPs here", () => {
    const kwokctl = parse(kwokConfiguration('/p').split('\n---\n')[1] ?? '') as { componentsPatches: { name: string; extraArgs: { key: string; value: string }[] }[] };
    expect(kwokctl.componentsPatches.find((p) => p.name === 'kube-apiserver')?.extraArgs).toContainEqual({ key: 'enable-aggregator-routing', value: 'true' });
  });

  it("leaves kwok to the fake nodes: kwok's flags select them by annotation", () => {
    const kwokctl = parse(kwokConfiguration('/cache/kwok/clusters/c1/pki').split('\n---\n')[1] ?? '') as { componentsPatches: { name: string; extraArgs: unknown }[] };
    const kwokArgs = kwokctl.componentsPatches.find((p) => p.name === 'kwok-controller')?.extraArgs;
    expect(kwokArgs).toEqual([
      { key: 'manage-all-nodes', value: 'false' },
      { key: 'manage-nodes-with-annotation-selector', value: KWOK_NODE_SELECTOR },
    ]);
  });
});
