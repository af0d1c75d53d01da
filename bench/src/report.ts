// results.md: when and where the bench ran, then one section per scenario.
import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import path from 'node:path';
import { ensureBinaries, kubectl, repoRoot, usingExternalCluster } from '@cloneset-suite/local-cluster';
import type { Cell, Section } from './result.ts';
import { controllerNodeFlags } from './controller-process.ts';

export interface Environment {
  date: string;
  machine: string;
  versions: string;
}

export async function gitCommit(): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)('git', ['-C', repoRoot, 'rev-parse', '--short', 'HEAD']);
    return stdout.trim();
  } catch {
    return 'unknown';
  }
}

export async function describeEnvironment(): Promise<Environment> {
  const cpus = os.cpus();
  // Built from Go modules, the control plane reports gitVersion v0.0.0-master: the pinned
  // versions are in the name of the bin directory build-binaries.sh made.
  const server = JSON.parse(await kubectl(['get', '--raw', '/version'])) as { major?: string; minor?: string; goVersion?: string };
  const client = JSON.parse(await kubectl(['version', '--client', '-o', 'json'])) as { clientVersion?: { gitVersion?: string } };
  const pinned = usingExternalCluster() ? '' : path.basename(path.dirname(await ensureBinaries()));
  const kwok = (await kubectl(['get', 'nodes', '-o', 'jsonpath={.items[0].status.nodeInfo.kubeletVersion}']).catch(() => '')).trim();
  const nodes = (await kubectl(['get', 'nodes', '-o', 'name'])).trim().split('\n').filter(Boolean).length;
  const flags = controllerNodeFlags(process.env);
  return {
    date: new Date().toISOString(),
    machine: `${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${os.platform()} ${os.release()}`,
    versions: [
      `Node ${process.version}${flags.length ? ` (controller children run with ${flags.join(' ')})` : ''}`,
      `kube-apiserver and kube-controller-manager ${server.major ?? '?'}.${server.minor ?? '?'} (${server.goVersion ?? '?'}; local build ${pinned || 'n/a'})`,
      `kwok ${kwok || '?'} (${nodes} simulated nodes)`,
      `kubectl ${client.clientVersion?.gitVersion ?? '?'}`,
      `cloneset-suite ${await gitCommit()}`,
    ].join(', '),
  };
}

const escapeCell = (c: Cell): string => String(c).replaceAll('|', '\\|').replaceAll('\n', ' ');

export function markdownTable(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const line = (cells: readonly Cell[]): string => `| ${cells.map(escapeCell).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export interface ScenarioRun {
  /** The scenario's name (--only's): marks its section so a later --merge run can replace it. */
  name: string;
  section: Section;
  seconds: number;
  /** 1-minute load average when the scenario started and ended. */
  load: [number, number];
}

export interface ReportOptions {
  quick: boolean;
  distortions: readonly string[];
  failures: readonly string[];
  /** The issue's targets the specification rules out, with the floor (./floors.ts). */
  specLimits: readonly string[];
  /** Where the machine-readable twin of this report was written. */
  jsonName: string;
  estimatedSeconds: number;
  actualSeconds: number;
}

export function renderReport(env: Environment, runs: readonly ScenarioRun[], options: ReportOptions): string {
  const out: string[] = [
    '# Bench results',
    '',
    `Written by \`npm run bench\` (bench/src/run.ts), with the same numbers in \`${options.jsonName}\`; every number below comes from that run. CloneSet controller vs the Deployment/ReplicaSet controllers of the same local cluster (real kube-apiserver and kube-controller-manager, kwok nodes whose simulated kubelet makes pods Ready after fixed delays). Measurements are reported, never asserted.`,
    '',
    markdownTable(
      ['', ''],
      [
        ['date', env.date],
        ['machine', env.machine],
        ['versions', env.versions],
        ['mode', options.quick ? '`--quick` (smaller sizes, one run per variant: a smoke run, not a result)' : 'full'],
        ['duration', `${options.actualSeconds.toFixed(0)} s (estimated ${options.estimatedSeconds.toFixed(0)} s)`],
      ],
    ),
    '',
    '## Targets the specification rules out',
    '',
    ...options.specLimits.map((l) => `- ${l}`),
    '',
    '## What distorts these numbers',
    '',
    ...options.distortions.map((d) => `- ${d}`),
    '',
  ];
  if (options.failures.length) out.push('## Scenarios that failed', '', ...options.failures.map((f) => `- ${f}`), '');
  for (const r of runs) out.push(renderSection(r));
  return out.join('\n');
}

/** The marker a scenario's section starts with: `<!-- bench-scenario: NAME -->`. */
export const sectionMarker = (name: string): string => `<!-- bench-scenario: ${name} -->`;

/** One scenario's section, marked with its name; `preamble` lines go right under its heading. */
export function renderSection(r: ScenarioRun, preamble: readonly string[] = []): string {
  const out = [sectionMarker(r.name), `## ${r.section.title}`, '', ...(preamble.length ? [...preamble, ''] : []), r.section.method, '', markdownTable(r.section.headers, r.section.rows), ''];
  const notes = [...r.section.notes, `Scenario wall time ${r.seconds.toFixed(0)} s; 1-minute load average ${r.load[0].toFixed(2)} at its start, ${r.load[1].toFixed(2)} at its end.`];
  out.push(...notes.map((n) => `- ${n}`), '');
  for (const t of r.section.extraTables ?? []) out.push(t.caption, '', markdownTable(t.headers, t.rows), '');
  return out.join('\n');
}
