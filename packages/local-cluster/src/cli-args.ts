// The command line of cluster:up, cluster:down and deploy:local, decided without side effects.

export interface CliArgs {
  /** The cluster to act on (`--cluster=NAME`); undefined: CLONESET_SUITE_CLUSTER_NAME or the default. */
  cluster: string | undefined;
  realNode: boolean;
  /** deploy:local installs the kustomize base instead of the Helm chart (`--kustomize`). */
  kustomize: boolean;
}

/** kwokctl names a cluster's directory, processes and kubeconfig context after it: a DNS label. */
const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Parses `--cluster=NAME` (or `--cluster NAME`), `--real-node` and `--kustomize`; throws naming the bad argument. */
export function parseCliArgs(argv: readonly string[], allowed: readonly ('--cluster' | '--real-node' | '--kustomize')[]): CliArgs {
  const args: CliArgs = { cluster: undefined, realNode: false, kustomize: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--real-node' && allowed.includes('--real-node')) {
      args.realNode = true;
    } else if (arg === '--kustomize' && allowed.includes('--kustomize')) {
      args.kustomize = true;
    } else if ((arg === '--cluster' || arg.startsWith('--cluster=')) && allowed.includes('--cluster')) {
      const value = arg === '--cluster' ? argv[++i] : arg.slice('--cluster='.length);
      if (value === undefined || !CLUSTER_NAME.test(value)) {
        throw new Error(`--cluster: ${JSON.stringify(value ?? '')} is not a cluster name (lowercase letters, digits and '-', at most 63, starting and ending with a letter or digit)`);
      }
      args.cluster = value;
    } else {
      throw new Error(`unknown argument ${JSON.stringify(arg)} (accepted: ${allowed.join(', ')})`);
    }
  }
  return args;
}
