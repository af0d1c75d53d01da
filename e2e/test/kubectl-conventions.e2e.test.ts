// The commands of OpenKruise's documentation, typed as its users type them: unversioned
// resources (`clone`), merge patches of `spec.updateStrategy.partition`, `kubectl edit` through
// $EDITOR. The CloneSet CRD serves apps.kruise.io/v1alpha1 only, as every released OpenKruise
// does, so kubectl's default version is v1alpha1 and a canary held by a partition stays a
// canary. Cluster-agnostic: the local cluster, or E2E_KUBECONFIG with a default install.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import { kubectlRun } from './kubectl-run.ts';
import { ensureManager, type E2EManager } from './manager.ts';

interface Pod {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { containers: { image: string }[] };
}
interface CloneSet {
  apiVersion: string;
  metadata: { generation: number };
  spec: { updateStrategy: Record<string, unknown>; template: { spec: { containers: { image: string }[] } } };
  status?: { observedGeneration?: number; replicas: number; updatedReplicas: number; updatedReadyReplicas: number; readyReplicas: number };
}

const REPLICAS = 5;

describe('kubectl as OpenKruise documents it', () => {
  let manager: E2EManager;
  let ns: { name: string; remove: () => Promise<void> };
  let editorDir: string;
  const cloneSet = async (): Promise<CloneSet> => (await getJson<CloneSet>(['clone', 'web', '-n', ns.name]))!;
  const images = async (): Promise<string[]> =>
    ((await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', 'app=web']))?.items ?? []).filter((p) => !p.metadata.deletionTimestamp).map((p) => p.spec.containers[0]!.image).sort();
  /** Waits until the controller has seen the latest spec and `expected(images)` holds, then checks it stays so. */
  const settles = async (what: string, expected: (images: string[]) => boolean): Promise<void> => {
    await eventually(what, async () => {
      const cs = await cloneSet();
      return cs.status?.observedGeneration === cs.metadata.generation && cs.status.readyReplicas === REPLICAS && cs.status.replicas === REPLICAS && expected(await images());
    }, { timeoutMs: 120_000, intervalMs: 500 });
    // Held, not merely slow: a few more passes change nothing.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(expected(await images()), `${what}: ${(await images()).join()}`).toBe(true);
  };
  /** Exactly `updated` pods run `image`. */
  const updatedTo = (image: string, updated: number) => (list: string[]): boolean => list.length === REPLICAS && list.filter((i) => i === image).length === updated;

  beforeAll(async () => {
    ns = await createTestNamespace('kubectl');
    manager = await ensureManager(ns.name);
    editorDir = mkdtempSync(path.join(tmpdir(), 'kubectl-editor-'));
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'web' },
      spec: {
        replicas: REPLICAS,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'web:1' }] } },
      },
    }));
    await settles('5 pods at web:1', updatedTo('web:1', REPLICAS));
  });
  afterAll(async () => {
    await manager?.stop();
    await ns?.remove();
    if (editorDir) rmSync(editorDir, { recursive: true, force: true });
  });

  it('kubectl\'s preferred apps.kruise.io version is v1alpha1, and `get -o yaml` reads it', async () => {
    const versions = (await kubectlRun(['api-versions'])).stdout.split('\n').filter((v) => v.startsWith('apps.kruise.io/'));
    expect(versions).toEqual(['apps.kruise.io/v1alpha1']);
    const yaml = (await kubectlRun(['get', 'clone', 'web', '-n', ns.name, '-o', 'yaml'])).stdout;
    expect(yaml).toMatch(/^apiVersion: apps\.kruise\.io\/v1alpha1$/m);
    expect(yaml).not.toContain('RollingUpdate');
    expect((await cloneSet()).spec.updateStrategy).toMatchObject({ type: 'ReCreate', partition: 0 });
  });

  it('kubectl edit setting the partition and the image in one edit holds every pod', async () => {
    // The editor a user would be: change two lines of the YAML kubectl hands it, save, quit.
    const editor = path.join(editorDir, 'edit-partition.sh');
    writeFileSync(editor, `#!/bin/sh\nsed -i -e 's/^\\( *\\)partition: 0$/\\1partition: ${REPLICAS}/' -e 's#image: web:1$#image: web:2#' "$1"\n`);
    chmodSync(editor, 0o755);
    const edited = await kubectlRun(['edit', 'cloneset', 'web', '-n', ns.name], { EDITOR: editor });
    expect(edited.stdout).toContain('cloneset.apps.kruise.io/web edited');
    const cs = await cloneSet();
    expect(cs.spec.updateStrategy.partition).toBe(REPLICAS);
    expect(cs.spec.template.spec.containers[0]!.image).toBe('web:2');
    await settles('every pod held at web:1', updatedTo('web:1', REPLICAS));
  });

  it('a merge patch lowering the partition through the unversioned resource moves exactly that many pods', async () => {
    const patched = await kubectlRun(['patch', 'clone', 'web', '-n', ns.name, '--type', 'merge', '-p', '{"spec":{"updateStrategy":{"partition":3}}}']);
    expect(patched.stdout.trim()).toBe('cloneset.apps.kruise.io/web patched');
    expect(patched.stderr).not.toContain('unknown field');
    expect((await cloneSet()).spec.updateStrategy.partition).toBe(3);
    await settles('2 pods at web:2, 3 held', updatedTo('web:2', REPLICAS - 3));
  });

  it('one merge patch of a new image and partition 3 of 5 rolls a canary of 2, not the whole set', async () => {
    const patched = await kubectlRun(['patch', 'clone', 'web', '-n', ns.name, '--type', 'merge', '-p', JSON.stringify({ spec: { updateStrategy: { partition: 3 }, template: { spec: { containers: [{ name: 'main', image: 'web:3' }] } } } })]);
    expect(patched.stdout.trim()).toBe('cloneset.apps.kruise.io/web patched');
    expect(patched.stderr).not.toContain('unknown field');
    await settles('a canary of 2 at web:3', updatedTo('web:3', 2));
    const cs = await cloneSet();
    expect(cs.status).toMatchObject({ updatedReplicas: 2, updatedReadyReplicas: 2 });
  });
});
