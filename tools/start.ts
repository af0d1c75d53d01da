// `npm start`: the local cluster plus the controller-manager against it (or, with --kubeconfig,
// the manager against that cluster). Arguments after `--` are controller-manager flags;
// `--shards=N` runs the sharder and N managers as shards of a ControllerRing instead.
const args = process.argv.slice(2);
if (args.some((a) => a === '--shards' || a.startsWith('--shards='))) {
  const { runRing, splitShardsArg } = await import('../apps/controller-manager/src/dev-ring/dev-ring.ts');
  let split: ReturnType<typeof splitShardsArg>;
  try {
    split = splitShardsArg(args);
  } catch (err) {
    process.stderr.write(`npm start: ${(err as Error).message}\n`);
    process.exit(2);
  }
  process.exit(await runRing(split!.shards, split!.rest));
}
await import('../apps/controller-manager/src/dev-start.ts');
