// Runs `kubectl` the way a user with the plugin installed does: the directory holding only the
// `kubectl-cloneset` link (as `npm install -g` makes) first on PATH, the test cluster's kubeconfig.
import { spawn } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export const pluginBinDir = mkdtempSync(path.join(tmpdir(), 'kubectl-plugin-path-'));
symlinkSync(path.join(repoRoot, 'apps/kubectl-plugin/bin/kubectl-cloneset.js'), path.join(pluginBinDir, 'kubectl-cloneset'));

/** The environment with the plugin first on PATH and the test cluster's kubeconfig. */
export function pluginEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${pluginBinDir}${path.delimiter}${process.env.PATH ?? ''}`, KUBECONFIG: testKubeconfigPath() };
}

/** `kubectl <args>` with the plugin installed. */
export function kubectlWithPlugin(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', args, { env: pluginEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
