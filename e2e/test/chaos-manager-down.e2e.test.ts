// Reads never depend on the manager: with it stopped (and its webhook configurations gone, as
// its README says to do when it stays down), `kubectl get clone -o yaml` and `kubectl edit` work
// and a namespace holding CloneSets finishes deleting. The CloneSet CRD serves v1alpha1 only, so
// nothing calls a conversion webhook. It stops a local process: local cluster only (chaos-*).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import { kubectlRun } from './kubectl-run.ts';
import { ensureManager, type E2EManager } from './manager.ts';

describe('with the manager stopped', () => {
  let manager: E2EManager | undefined;
  let ns: { name: string; remove: () => Promise<void> };
  let editorDir: string;

  beforeAll(async () => {
    ns = await createTestNamespace('down');
    manager = await ensureManager(ns.name);
    editorDir = mkdtempSync(path.join(tmpdir(), 'kubectl-editor-'));
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'web' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'web:1' }] } } },
    }));
    await eventually('2 ready pods', async () => (await getJson<{ status?: { readyReplicas?: number } }>(['clone', 'web', '-n', ns.name]))?.status?.readyReplicas === 2, { timeoutMs: 90_000 });
    await manager.stop();
    manager = undefined;
  });
  afterAll(async () => {
    await manager?.stop();
    if (editorDir) rmSync(editorDir, { recursive: true, force: true });
  });

  it('the CloneSet CRD needs no conversion webhook', async () => {
    const crd = await getJson<{ spec: { versions: { name: string }[]; conversion?: { strategy?: string } } }>(['crd', 'clonesets.apps.kruise.io']);
    expect(crd!.spec.versions.map((v) => v.name)).toEqual(['v1alpha1']);
  });

  it('kubectl get clone -o yaml reads it', async () => {
    const yaml = await kubectl(['get', 'clone', 'web', '-n', ns.name, '-o', 'yaml']);
    expect(yaml).toMatch(/^apiVersion: apps\.kruise\.io\/v1alpha1$/m);
    expect(yaml).toMatch(/^ {2}name: web$/m);
  });

  it('kubectl edit saves an edit', async () => {
    const editor = path.join(editorDir, 'label.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i -e \'s/^\\(  name: web\\)$/\\1\\n  labels:\\n    edited: "while-down"/\' "$1"\n');
    chmodSync(editor, 0o755);
    expect((await kubectlRun(['edit', 'clone', 'web', '-n', ns.name], { EDITOR: editor })).stdout).toContain('cloneset.apps.kruise.io/web edited');
    expect(await kubectl(['get', 'clone', 'web', '-n', ns.name, '-o', 'jsonpath={.metadata.labels.edited}'])).toBe('while-down');
  });

  it('a namespace holding a CloneSet finishes deleting', async () => {
    await kubectl(['delete', 'namespace', ns.name, '--wait=true', '--timeout=90s']);
    expect((await kubectl(['get', 'namespace', ns.name, '--ignore-not-found', '-o', 'name'])).trim()).toBe('');
  });
});
