// `npm start`: the local cluster plus the controller-manager against it (or, with --kubeconfig,
// the manager against that cluster). Arguments after `--` are controller-manager flags.
await import('../apps/controller-manager/src/dev-start.ts');
