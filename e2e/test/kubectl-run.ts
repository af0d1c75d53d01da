// kubectl as a user runs it: its stdout and stderr (warnings), and an environment of its own
// (an EDITOR for kubectl edit; KUBE_EDITOR cleared so EDITOR is the one used).
import { execFile } from 'node:child_process';
import { testKubeconfigPath } from '@cloneset-suite/local-cluster';

export function kubectlRun(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('kubectl', ['--kubeconfig', testKubeconfigPath(), ...args], { env: { ...process.env, KUBE_EDITOR: '', ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr || err.message}`)) : resolve({ stdout, stderr }),
    );
  });
}
