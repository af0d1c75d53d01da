// restartComponent stops one control-plane process and brings it back: the suites use it to
// prove that watches survive an apiserver restart.
import { describe, expect, it } from 'vitest';
import { isClusterReady, kubectl, restartComponent, usingExternalCluster } from '../../src/index.ts';

describe.runIf(!usingExternalCluster())('restartComponent', () => {
  it('restarts kube-apiserver and keeps the stored objects', async () => {
    const name = `restart-probe-${Date.now()}`;
    await kubectl(['create', 'configmap', name, '-n', 'default', '--from-literal=k=v']);
    const downSeen: boolean[] = [];
    const restarted = restartComponent('kube-apiserver', 1_500);
    // While it is down the cluster must really be unreachable at least once.
    for (let i = 0; i < 10; i++) {
      downSeen.push(!(await isClusterReady()));
      await new Promise((r) => setTimeout(r, 200));
    }
    await restarted;
    expect(downSeen).toContain(true);
    expect(await isClusterReady()).toBe(true);
    expect((await kubectl(['get', 'configmap', name, '-n', 'default', '-o', 'jsonpath={.data.k}'])).trim()).toBe('v');
    await kubectl(['delete', 'configmap', name, '-n', 'default']);
  });
});
