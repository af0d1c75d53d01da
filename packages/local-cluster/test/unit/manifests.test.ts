import { parseAllDocuments } from 'yaml';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeManifests, zones } from '../../src/nodes.ts';
import { storageClassManifest } from '../../src/storage.ts';

interface StagePatch { subresource?: string; type?: string; template: string }
interface StageStep { patch?: StagePatch; event?: { reason: string }; delete?: boolean; finalizers?: unknown }
interface StageSpec { selector?: unknown; resourceRef: { kind: string }; next?: { statusTemplate?: string }; steps?: StageStep[] }
interface Doc { kind: string; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> }

describe('node manifests', () => {
  it('spreads nodes evenly over three zones, kwok-managed and untainted', () => {
    const docs = parseAllDocuments(nodeManifests(7)).map((d) => d.toJS() as Doc);
    expect(docs).toHaveLength(7);
    const perZone = zones.map((z) => docs.filter((d) => d.metadata.labels?.['topology.kubernetes.io/zone'] === z).length);
    expect(perZone).toEqual([3, 2, 2]);
    for (const d of docs) {
      expect(d.metadata.annotations?.['kwok.x-k8s.io/node']).toBe('fake');
      expect(d.spec?.taints).toBeUndefined();
    }
    expect(new Set(docs.map((d) => d.metadata.name)).size).toBe(7);
  });

  it('gives each node its own loopback address, which the node stage reports as InternalIP', () => {
    const docs = parseAllDocuments(nodeManifests(600)).map((d) => d.toJS() as Doc);
    const ips = docs.map((d) => d.metadata.annotations?.['sim.cloneset-suite.io/node-ip'] ?? '');
    expect(new Set(ips).size).toBe(600);
    for (const ip of ips) expect(ip).toMatch(/^127\.1\.([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])\.([1-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|250)$/);
    const nodeStages = readFileSync(path.resolve(import.meta.dirname, '../../stages/node-stages.yaml'), 'utf8');
    expect(nodeStages).toMatch(/- type: InternalIP\n\s+address: \{\{ index \(\.metadata\.annotations \| default dict\) "sim\.cloneset-suite\.io\/node-ip"/);
  });
});

describe('storage class', () => {
  it('is the default class, provisioned by kube-controller-manager, plus the seed sample\'s class', () => {
    const [standard, nfs] = parseAllDocuments(storageClassManifest()).map((d) => d.toJS() as Doc & { provisioner: string });
    expect(standard!.metadata.annotations?.['storageclass.kubernetes.io/is-default-class']).toBe('true');
    expect(standard!.provisioner).toBe('kubernetes.io/host-path');
    expect(nfs!.metadata).toMatchObject({ name: 'nfs-storage' });
    expect(nfs!.metadata.annotations).toBeUndefined();
  });
});

describe('kwok stages', () => {
  const dir = path.resolve(import.meta.dirname, '../../stages');
  const stages = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => parseAllDocuments(readFileSync(path.join(dir, f), 'utf8')).map((d) => d.toJS() as Doc & { spec: StageSpec }));
  const podStages = stages.filter((s) => s.spec.resourceRef.kind === 'Pod');
  const patchesOf = (s: (typeof stages)[number]): StagePatch[] => (s.spec.steps ?? []).flatMap((step) => (step.patch ? [step.patch] : []));
  const templates = (s: (typeof stages)[number]): string[] => [s.spec.next?.statusTemplate ?? '', ...patchesOf(s).map((p) => p.template)];

  it('defines the suite pod and node stages, each with a selector (kwok ignores stages without one)', () => {
    expect(stages.map((s) => s.metadata.name).sort()).toEqual([
      'node-heartbeat', 'node-initialize',
      'pod-containers-ready', 'pod-crash', 'pod-create', 'pod-delete', 'pod-ready-sync', 'pod-resize', 'pod-restart-changed-containers', 'pod-start', 'pod-terminate',
    ]);
    for (const s of stages) expect(s.spec.selector, s.metadata.name).toBeDefined();
  });

  it('never sets readiness-gate conditions itself (controllers own them)', () => {
    for (const s of podStages) {
      for (const t of templates(s)) expect(t, s.metadata.name).not.toMatch(/range \.spec\.readinessGates \}\}\s*- /);
    }
  });

  it('writes a pod as a JSON patch that tests what the stage computed from, not the whole version', () => {
    const writing = podStages.filter((s) => !s.spec.steps?.some((step) => step.delete));
    expect(writing.length).toBeGreaterThan(0);
    for (const s of writing) {
      expect(patchesOf(s).length, s.metadata.name).toBeGreaterThan(0);
      for (const p of patchesOf(s)) {
        expect(p.subresource, s.metadata.name).toBe('status');
        expect(p.type, s.metadata.name).toBe('json');
        // A whole-object precondition refused the stage whenever anyone wrote a label meanwhile.
        expect(p.template, s.metadata.name).not.toMatch(/resourceVersion/);
        const ops = [...p.template.matchAll(/^\s*- \{op: (\w+), path: ([^,]+),/gm)].map(([, op, path]) => ({ op: op!, path: path! }));
        expect(ops.filter((o) => o.op === 'test').length, s.metadata.name).toBeGreaterThan(0);
        for (const o of ops.filter((x) => x.op !== 'test')) {
          // Only the kubelet's own fields, and the due time of the next stage.
          expect(o.path, `${s.metadata.name} ${o.op}`).toMatch(/^\/(status\/|metadata\/annotations($|\/sim\.cloneset-suite\.io~1next-stage-at$))/);
          // A condition is replaced only at an index whose type was just tested: never someone else's.
          if (o.op === 'replace' && o.path.startsWith('/status/conditions/')) {
            const i = ops.indexOf(o);
            expect(ops[i - 1], s.metadata.name).toEqual({ op: 'test', path: `${o.path}/type` });
          }
        }
      }
    }
  });

  it('repeats its shared blocks identically in every stage that uses them (kwok has no shared template definitions)', () => {
    const blocks: Record<string, RegExp> = {
      'condition upsert': /^ *\{\{- if not \.status\.conditions \}\}\n[\s\S]*?\{\{- range \$u := \$upserts \}\}\n[\s\S]*?\{\{- end \}\}\n *\{\{- end \}\}$/m,
      'readiness gates': /^ *\{\{- \$gateMessages := list \}\}\n[\s\S]*?\{\{- if \$gateMessages \}\}.*$/m,
      'old container status': /^ *\{\{- \$old := dict \}\}.*$/m,
      'image id': /^ *\{\{- \$sameImage := dict \}\}\n[\s\S]*?\{\{- \$_ := set \$imageIDs .*\n *\{\{- end \}\}$/m,
    };
    for (const [name, re] of Object.entries(blocks)) {
      const copies = podStages.flatMap((s) => patchesOf(s).map((p) => re.exec(p.template)?.[0]).filter((b) => b !== undefined));
      expect(copies.length, name).toBeGreaterThan(1);
      expect(new Set(copies).size, name).toBe(1);
    }
  });

  it('keeps the resize-pending selector identical wherever a stage gives way to a pending resize, and the resize stage only', () => {
    const keyOf = (s: (typeof stages)[number]) =>
      ((s.spec.selector as { matchExpressions?: { key: string; values?: string[] }[] }).matchExpressions ?? []).filter((e) => e.key.includes('"PodResizePending"'));
    const uses = podStages.flatMap((s) => keyOf(s).map((e) => ({ stage: s.metadata.name, key: e.key, values: e.values })));
    expect(new Set(uses.map((u) => u.key)).size).toBe(1);
    expect(uses.filter((u) => u.values?.[0] === 'true').map((u) => u.stage)).toEqual(['pod-resize']);
    // The stages that would otherwise match a running pod with a pending resize give way to it.
    expect(uses.filter((u) => u.values?.[0] === 'false').map((u) => u.stage).sort()).toEqual(['pod-containers-ready', 'pod-crash', 'pod-ready-sync']);
  });

  it('gives every container status it writes a containerID, and takes each imageID from the image (two tags of one image share it)', () => {
    for (const s of podStages) {
      for (const p of patchesOf(s)) {
        // Each container status a stage builds: a dict with a "name" and an "image".
        const statuses = p.template.split('\n').filter((l) => /\(dict "name" \$?c?\.name "image"/.test(l));
        for (const line of statuses) {
          if (line.includes('"waiting" (dict "reason" "ContainerCreating")')) continue; // not started yet: no container
          expect(line, s.metadata.name).toMatch(/"containerID" /);
          expect(line, s.metadata.name).toMatch(/"imageID" \((index \$imageIDs \$?c?\.image|\$old\.imageID)/);
        }
      }
    }
    // A new containerID on every start: hashed from the pod's uid, the container, its restart count and the time.
    const fresh = podStages.flatMap((s) => patchesOf(s).flatMap((p) => [...p.template.matchAll(/containerd:\/\/%s" \(sha256sum \(printf "([^"]+)" ([^)]+)\)/g)].map((m) => `${m[1]} ${m[2]}`)));
    expect(fresh.length).toBeGreaterThanOrEqual(3);
    for (const f of fresh) expect(f).toMatch(/^%v\/%v\/(0|%v)\/%v \$uid \S*name( \$restarts)? \$now$/);
  });

  it('records a stage\'s Event only after its writes succeeded, so a refused replay records none', () => {
    for (const s of podStages) {
      // The deprecated "next" form sends its Event before the patch.
      expect(s.spec.next, s.metadata.name).toBeUndefined();
      const steps = s.spec.steps ?? [];
      expect(steps.length, s.metadata.name).toBeGreaterThan(0);
      const firstEvent = steps.findIndex((step) => step.event);
      if (firstEvent < 0) continue;
      expect(steps.slice(firstEvent).every((step) => step.event && !step.patch && !step.delete && !step.finalizers), s.metadata.name).toBe(true);
    }
    expect(podStages.filter((s) => s.spec.steps?.some((step) => step.event)).map((s) => s.metadata.name).sort()).toEqual(['pod-crash', 'pod-create', 'pod-restart-changed-containers', 'pod-terminate']);
  });

  it('times each delayed stage that follows another from the due time that stage wrote, not from the last watch event', () => {
    for (const name of ['pod-start', 'pod-containers-ready']) {
      const s = podStages.find((x) => x.metadata.name === name)!;
      const delay = (s.spec as { delay?: { durationFrom?: { expressionFrom?: string } } }).delay;
      expect(delay?.durationFrom?.expressionFrom, name).toMatch(/^\.metadata\.annotations\["sim\.cloneset-suite\.io\/next-stage-at"\] \/\/ /);
    }
  });
});
