// Builds the controller-manager image the way `npm run image:build` does (offline: buildah from a
// base assembled from the checkout's Node) and runs it in containerd as a user's runtime would.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDebianPackages, startPrivateContainerd, type PrivateContainerd } from './private-containerd.ts';

const buildScript = fileURLToPath(new URL('../../scripts/build-image.sh', import.meta.url));
const image = 'localhost/cloneset-suite/controller-manager:image-test';
const isRoot = process.getuid?.() === 0;

// buildah's chroot isolation and containerd need root; CI runs as root, so it runs there.
describe.runIf(isRoot)('the controller-manager image', () => {
  let containerd: PrivateContainerd;
  let runs = 0;
  const runImage = (args: readonly string[]) => containerd.ctr(['run', '--rm', image, `image-test-${process.pid}-${++runs}`, 'node', 'apps/controller-manager/src/main.ts', ...args]);

  beforeAll(async () => {
    await ensureDebianPackages({ containerd: 'containerd', runc: 'runc' });
    const { stdout } = await promisify(execFile)('bash', [buildScript], { env: { ...process.env, IMAGE: image }, timeout: 15 * 60_000, maxBuffer: 16 * 1024 * 1024 });
    const archive = stdout.trim().split('\n').at(-1) ?? '';
    containerd = await startPrivateContainerd();
    const imported = await containerd.ctr(['images', 'import', archive]);
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
  }, 20 * 60_000);

  afterAll(async () => {
    await containerd?.stop();
  });

  it('answers --help', async () => {
    const { code, stdout, stderr } = await runImage(['--help']);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Usage: controller-manager \[flags\]/);
    expect(code).toBe(0);
  });

  it('refuses a bad flag value naming the flag', async () => {
    const { code, stderr } = await runImage(['--log-level=loud']);
    expect(stderr).toContain('invalid value "loud" for --log-level');
    expect(code).toBe(2);
  });

  it('loads every module of the manager (it gets as far as reading the kubeconfig)', async () => {
    const { code, stderr } = await runImage(['--kubeconfig=/nonexistent/kubeconfig']);
    expect(stderr).not.toContain('ERR_MODULE_NOT_FOUND');
    expect(stderr).toContain('controller-manager: cannot start: ENOENT');
    expect(code).toBe(1);
  });

  it('runs as the unprivileged user the chart expects', async () => {
    const { stdout } = await containerd.ctr(['run', '--rm', image, `image-test-${process.pid}-id`, 'node', '-p', 'process.getuid()']);
    expect(stdout.trim()).toBe('65532');
  });
});
