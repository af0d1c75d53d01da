import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawnManager, unreachableKubeconfig } from '../support/process.ts';

describe('the controller-manager command', () => {
  it('prints --help and exits 0', async () => {
    const p = spawnManager(['--help']);
    expect(await p.exited).toBe(0);
    expect(p.output()).toContain('--metrics-bind-address');
    expect(p.output()).toContain('CONTROLLER_MANAGER_LEADER_ELECT');
  });

  it('exits 2 naming a bad flag value', async () => {
    const p = spawnManager(['--webhook-port=http']);
    expect(await p.exited).toBe(2);
    expect(p.output()).toMatch(/invalid value "http" for --webhook-port/);
  });

  it('exits 2 naming a bad environment value', async () => {
    const p = spawnManager([], { ...process.env, CONTROLLER_MANAGER_LOG_LEVEL: 'chatty' });
    expect(await p.exited).toBe(2);
    expect(p.output()).toMatch(/--log-level \(environment variable CONTROLLER_MANAGER_LOG_LEVEL\)/);
  });

  it('exits 1 when it cannot load the kubeconfig', async () => {
    const p = spawnManager(['--kubeconfig=/nonexistent/kubeconfig', '--metrics-bind-address=0', '--health-probe-bind-address=0']);
    expect(await p.exited).toBe(1);
    expect(p.output()).toMatch(/cannot start/);
  });

  it('exits 1 naming the component when a server cannot bind its port', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const p = spawnManager([
        `--kubeconfig=${unreachableKubeconfig()}`,
        `--metrics-bind-address=127.0.0.1:${port}`,
        '--health-probe-bind-address=0',
        '--webhook-port=0',
        '--leader-election-namespace=default',
      ]);
      expect(await p.exited).toBe(1);
      expect(p.output()).toMatch(/"runnable":"metrics".*EADDRINUSE|EADDRINUSE.*"runnable":"metrics"/);
      expect(p.output()).toContain('"reason":"failed"');
    } finally {
      taken.close();
    }
  });
});
