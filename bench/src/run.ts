// npm run bench -- [--quick] [--only=scale-out,rollout,settled,memory,webhook,lease,scale-large,scale-large-shipped,manager-large,sharding] [--out=path] [--merge] (options: ./options.ts)
// Starts (or reuses) the local cluster, runs each scenario in its own namespace, one after the
// other, and writes bench/results.md and bench/results.json beside it.
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { PROBE_NAMESPACE_PREFIX, kubectl, startCluster } from '@cloneset-suite/local-cluster';
import { installCrds } from './kube.ts';
import { USAGE, parseBenchArgs } from './options.ts';
import path from 'node:path';
import { estimateSeconds } from './estimate.ts';
import { floorNotes, writeFloors } from './floors.ts';
import { mergeReport, mergeResultsJson, mergedRunNote } from './merge.ts';
import { describeEnvironment, gitCommit, renderReport, renderSection, type ScenarioRun } from './report.ts';
import { FULL, QUICK, type BenchSizes } from './result.ts';
import { buildResultsJson, jsonPathBeside, mergeResultData, toJsonValue, type JsonValue, type RunMeta } from './results-json.ts';
import { OPT_IN, SCENARIOS, clusterNodes } from './scenario-table.ts';

type Log = (line: string) => void;

let values: ReturnType<typeof parseBenchArgs>;
try {
  values = parseBenchArgs(process.argv.slice(2), Object.keys(SCENARIOS), OPT_IN);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const names = values.scenarios;
const base = values.quick ? QUICK : FULL;
const sizes: BenchSizes = {
  ...base,
  large: {
    ...base.large,
    ...(values.largeReplicas !== undefined ? { cloneSetReplicas: values.largeReplicas } : {}),
    ...(values.managerSize ? { managerCloneSets: values.managerSize.cloneSets, managerPodsPerCloneSet: values.managerSize.podsPerCloneSet } : {}),
  },
};
const started = Date.now();
const log: Log = (line) => process.stderr.write(`[bench +${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`);
const estimated = estimateSeconds(sizes, names);
const jsonOut = jsonPathBeside(values.out);
log(`${values.quick ? 'quick' : 'full'} run of ${names.join(', ')}: estimated ${Math.round(estimated / 60)} min (${estimated.toFixed(0)} s); writes ${values.out} and ${jsonOut}`);

/** Namespaces of other tenants (test suites) on the cluster right now. */
async function foreignNamespaces(): Promise<string[]> {
  const system = new Set(['default', 'kube-system', 'kube-public', 'kube-node-lease', 'cloneset-suite-system']);
  const out = await kubectl(['get', 'namespaces', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}']);
  return out.split('\n').filter((n) => n && !system.has(n) && !n.startsWith('bench-') && !n.startsWith(PROBE_NAMESPACE_PREFIX));
}

// A CloneSet of 10,000 pods (scale-large, scale-large-shipped) needs more simulated nodes than the 6 the cluster starts with.
await startCluster({ log, nodes: clusterNodes(names, sizes.large.cloneSetReplicas) });
await installCrds();
const env = await describeEnvironment();
const foreignAtStart = await foreignNamespaces();
const loadAtStart = os.loadavg()[0]!;
const runs: ScenarioRun[] = [];
const failures: string[] = [];
const foreignSeen = new Set(foreignAtStart);
for (const name of names) {
  const load0 = os.loadavg()[0]!;
  const t0 = Date.now();
  try {
    const section = await SCENARIOS[name]!(sizes, log);
    runs.push({ name, section, seconds: (Date.now() - t0) / 1000, load: [load0, os.loadavg()[0]!] });
  } catch (err) {
    log(`${name} failed: ${(err as Error).stack ?? String(err)}`);
    failures.push(`${name}: ${(err as Error).message.split('\n')[0]}`);
  }
  for (const n of await foreignNamespaces()) foreignSeen.add(n);
}
const totalSeconds = (Date.now() - started) / 1000;
const distortions = [
  `The machine (${os.availableParallelism()} CPUs) is shared: other engineers' test suites ran on the same cluster and CPUs during the bench. Namespaces of other tenants seen: ${foreignAtStart.length} at the start, ${foreignSeen.size} over the run (e.g. ${[...foreignSeen].slice(0, 5).join(', ') || 'none'}). 1-minute load average ${loadAtStart.toFixed(2)} at the start, ${os.loadavg()[0]!.toFixed(2)} at the end; each section gives its own.`,
  `kube-apiserver, etcd, the kube-controller-manager, the scheduler, the kwok kubelet, the CloneSet controller and the bench itself all share these CPUs: a slower controller also slows the pods' simulated kubelet and the watcher that times them. Each timed variant ran ${sizes.repeats} time(s), alternating with the Deployment; ${sizes.repeats > 1 ? 'the min–max range beside each median shows the noise.' : 'one sample each, so differences of a few tenths of a second are noise.'}`,
  'The CloneSet controller is TypeScript in its own Node process; the Deployment and ReplicaSet controllers are Go inside the kube-controller-manager. Both have unthrottled clients here (the kcm runs with --kube-api-qps=5000) unless a row says otherwise.',
  'Pods never run anything: the simulated kubelet (kwok Stages, played by 32 workers) makes them Running after 100 ms and Ready 300 ms later, and removes deleted ones after 100 ms; all times are control-plane times.',
  `The whole bench took ${totalSeconds.toFixed(0)} s (estimated ${estimated.toFixed(0)} s).`,
];
const meta: RunMeta = {
  machine: env.machine,
  commit: await gitCommit(),
  date: env.date,
  mode: values.quick ? 'quick' : 'full',
  scenarios: names,
  estimatedSeconds: estimated,
  durationSeconds: totalSeconds,
  failures,
};
const data = mergeResultData(runs.map((r) => r.section.data));
if (values.merge) {
  // A scenario that failed keeps its earlier section and groups; the merged run lists the failure.
  const note = mergedRunNote(meta, `${distortions[0]} ${env.versions}.`);
  const existingMd = await readFile(values.out, 'utf8').catch(() => '');
  await writeFile(values.out, mergeReport(existingMd, runs.map((r) => ({ name: r.name, text: renderSection(r, [note]) }))));
  const existingJson = JSON.parse(await readFile(jsonOut, 'utf8').catch(() => '{}')) as Record<string, JsonValue>;
  const merged = mergeResultsJson(existingJson, meta, toJsonValue(data) as Record<string, JsonValue>);
  await writeFile(jsonOut, `${JSON.stringify(merged, null, 2)}\n`);
} else {
  const specLimits = floorNotes(writeFloors(sizes.scaleOut, sizes.rollout));
  await writeFile(
    values.out,
    renderReport(env, runs, {
      quick: values.quick,
      distortions,
      failures,
      specLimits,
      jsonName: path.basename(jsonOut),
      estimatedSeconds: estimated,
      actualSeconds: totalSeconds,
    }) + '\n',
  );
  await writeFile(jsonOut, `${JSON.stringify(buildResultsJson(meta, data), null, 2)}\n`);
}
log(`wrote ${values.out} and ${jsonOut} in ${totalSeconds.toFixed(0)} s (estimated ${estimated.toFixed(0)} s)`);
process.exit(failures.length ? 1 : 0);
