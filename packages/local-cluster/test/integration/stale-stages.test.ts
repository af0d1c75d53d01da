// kwok plays a stage on the pod version its watch delivered. When someone else (a controller
// writing a readiness-gate condition or a label) writes the pod while that stage's patch is in
// flight, the write's watch event still shows the old status, so kwok matches and plays the same
// stage again: a second "create" with a new pod IP, a second "start"... each replay a new write
// that triggers the next stage twice as well (CloneSet pods, written twice each by
// their controller, reached Ready seconds after Deployment pods). A kubelet never acts twice on
// one container start because a controller wrote a condition: every stage's patch tests the
// fields it computed from, so the apiserver refuses a stale replay. Nor does a kubelet wait for a
// controller to stop writing labels before it starts containers: a label write neither refuses a
// stage nor restarts the clock of a delayed one. And a refused replay records no second Event.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, freePort, kubectl, testKubeconfigPath } from '../../src/index.ts';

interface PodVersion {
  metadata: { name: string; resourceVersion: string; labels?: Record<string, string> };
  spec: { nodeName?: string };
  status: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[]; containerStatuses?: { ready: boolean }[] };
}

const PODS = 10;
/** Concurrent writers per pod: a write lands every few milliseconds, inside any stage's round trip. */
const WRITERS_PER_POD = 4;
/** How long the writes go on once kwok's first stage (the pod IP) is visible: replays land late. */
const WRITE_ON_MS = 500;
const WRITER_CONDITION = 'cloneset-suite.io/test-writer';

/** Every version of every pod in the namespace, as a watch delivers them. */
function watchPods(ns: string): { versions: Map<string, PodVersion[]>; stop: () => void } {
  const versions = new Map<string, PodVersion[]>();
  const child = spawn('kubectl', ['--kubeconfig', testKubeconfigPath(), 'get', 'pods', '-n', ns, '-w', '-o', 'jsonpath={@}{"\\n"}']);
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      const pod = JSON.parse(line) as PodVersion;
      versions.set(pod.metadata.name, [...(versions.get(pod.metadata.name) ?? []), pod]);
    }
  });
  return { versions, stop: () => void child.kill() };
}

/** `kubectl proxy` on a free port: many quick writes without a kubectl process each. */
async function startProxy(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const child = spawn('kubectl', ['--kubeconfig', testKubeconfigPath(), 'proxy', `--port=${port}`, '--address=127.0.0.1']);
  const url = `http://127.0.0.1:${port}`;
  await eventually('kubectl proxy', async () => (await fetch(`${url}/readyz`)).ok, { timeoutMs: 20_000 });
  return { url, stop: () => void child.kill() };
}

/**
 * Toggles a condition nobody else owns, as fast as a busy controller would write a pod, from its
 * creation until WRITE_ON_MS after `started` (kwok's first stage is visible) first held.
 */
async function writeConditionRepeatedly(url: string, ns: string, pod: string, writer: number, started: () => boolean): Promise<void> {
  let startedAt: number | undefined;
  for (let i = 0; startedAt === undefined || Date.now() - startedAt < WRITE_ON_MS; i++) {
    if (startedAt === undefined && started()) startedAt = Date.now();
    // A new message each time: every write is a change, with a watch event of its own.
    const body = { status: { conditions: [{ type: WRITER_CONDITION, status: 'True', message: `${writer}/${i}` }] } };
    const res = await fetch(`${url}/api/v1/namespaces/${ns}/pods/${pod}/status`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`status write of ${pod}: ${res.status} ${await res.text()}`);
  }
}

/** How many times each pod's "Created" Event was recorded (an Event's count folds repeats). */
async function createdEventCounts(ns: string): Promise<Record<string, number>> {
  const list = JSON.parse(await kubectl(['get', 'events', '-n', ns, '--field-selector', 'reason=Created,involvedObject.kind=Pod', '-o', 'json'])) as {
    items: { involvedObject: { name: string }; count?: number; series?: { count: number } }[];
  };
  const counts: Record<string, number> = {};
  for (const e of list.items) counts[e.involvedObject.name] = (counts[e.involvedObject.name] ?? 0) + (e.series?.count ?? e.count ?? 1);
  return counts;
}

const isReady = (p: PodVersion): boolean => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const containersReady = (p: PodVersion): boolean => (p.status.containerStatuses ?? []).length > 0 && p.status.containerStatuses!.every((c) => c.ready);

/** What a kubelet never does to a pod nobody deleted or changed the image of, in watch order. */
function replayedStages(history: readonly PodVersion[]): string[] {
  const found: string[] = [];
  const ips = new Set(history.map((p) => p.status.podIP).filter((ip) => ip !== undefined));
  if (ips.size > 1) found.push(`pod IP assigned ${ips.size} times (${[...ips].join(', ')})`);
  history.forEach((p, i) => {
    const prev = history[i - 1];
    if (prev?.status.phase === 'Running' && p.status.phase === 'Pending') found.push(`phase back to Pending at resourceVersion ${p.metadata.resourceVersion}`);
    if (prev && containersReady(prev) && !containersReady(p)) found.push(`containers back to not ready at resourceVersion ${p.metadata.resourceVersion}`);
  });
  return found;
}

/** Changes a label of `pod` every LABEL_WRITE_EVERY_MS until `until` (epoch ms). */
async function writeLabelRepeatedly(url: string, ns: string, pod: string, until: number): Promise<void> {
  for (let i = 0; Date.now() < until; i++) {
    const res = await fetch(`${url}/api/v1/namespaces/${ns}/pods/${pod}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { labels: { 'cloneset-suite.io/test-writer': String(i) } } }),
    });
    if (!res.ok) throw new Error(`label write of ${pod}: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, LABEL_WRITE_EVERY_MS));
  }
}

/** Shorter than every stage delay: a stage whose clock restarted on each write would never run. */
const LABEL_WRITE_EVERY_MS = 50;
const LABEL_WRITES_FOR_MS = 8_000;

describe('kwok stages under concurrent status writes', () => {
  let ns: string;
  let removeNs: () => Promise<void>;
  let proxy: { url: string; stop: () => void } | undefined;
  beforeAll(async () => {
    ({ name: ns, remove: removeNs } = await createTestNamespace('stale-stages'));
    proxy = await startProxy();
  });
  afterAll(async () => {
    proxy?.stop();
    await removeNs();
  });

  it('plays each stage once per pod: a write by someone else during a stage never makes kwok replay it', async () => {
    const watch = watchPods(ns);
    try {
      await new Promise((r) => setTimeout(r, 1_000)); // the watch is established before the first pod
      const names = Array.from({ length: PODS }, (_, i) => `pod-${i}`);
      const manifests = names.map((name) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] } }));
      await kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests }));
      // Each pod is written from its creation until kwok has created its containers: the window
      // in which kwok plays the pod's first stage.
      const started = (name: string) => (): boolean => watch.versions.get(name)?.some((p) => p.status.podIP) ?? false;
      await Promise.all(names.flatMap((name) => Array.from({ length: WRITERS_PER_POD }, (_, writer) => writeConditionRepeatedly(proxy!.url, ns, name, writer, started(name)))));
      await eventually('every pod Ready', () => Promise.resolve(names.every((n) => watch.versions.get(n)?.some(isReady))), { timeoutMs: 60_000 });
      await new Promise((r) => setTimeout(r, 2_000)); // late replays, if any, reach the watch
      const replays = Object.fromEntries(names.map((n) => [n, replayedStages(watch.versions.get(n) ?? [])] as const).filter(([, r]) => r.length > 0));
      expect(replays).toEqual({});
      for (const n of names) expect(isReady(watch.versions.get(n)!.at(-1)!), n).toBe(true);
      // A refused replay records no Event either: one "Created" per pod, as a kubelet reports it.
      expect(await createdEventCounts(ns)).toEqual(Object.fromEntries(names.map((n) => [n, 1])));
    } finally {
      watch.stop();
    }
  });

  it('starts and readies a pod on time while someone keeps writing its labels', async () => {
    const watch = watchPods(ns);
    try {
      await new Promise((r) => setTimeout(r, 1_000));
      const manifest = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'labelled', namespace: ns, annotations: { 'sim.cloneset-suite.io/ready-delay': '1s' } }, spec: { containers: [{ name: 'main', image: 'nginx:1.25' }] } };
      await kubectl(['create', '-f', '-'], JSON.stringify(manifest));
      const writesEnd = Date.now() + LABEL_WRITES_FOR_MS;
      await writeLabelRepeatedly(proxy!.url, ns, 'labelled', writesEnd);
      // Seen during the writes: start (100 ms) and ready (1 s) are due well before they end.
      const seen = watch.versions.get('labelled') ?? [];
      expect(seen.filter((p) => p.metadata.labels?.['cloneset-suite.io/test-writer'] !== undefined).length).toBeGreaterThan(LABEL_WRITES_FOR_MS / LABEL_WRITE_EVERY_MS / 4);
      expect(seen.some(isReady)).toBe(true);
      expect(replayedStages(seen)).toEqual([]);
    } finally {
      watch.stop();
    }
  });
});
