// The kubectl plugin as a user runs it: the real kubectl binary finds `kubectl-cloneset` on PATH
// (a directory holding only the executable's link, as `npm install -g` makes) and every verb is
// checked against a running controller-manager: rollout status through a partitioned rollout
// and a timeout, pause mid-rollout and resume, history, undo to a revision (pods follow),
// restart, set image, partition (a webhook refusal is printed), and the pods table.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { ensureManager, type E2EManager } from './manager.ts';
import { kubectlWithPlugin, pluginBinDir, pluginEnv, type Run } from './plugin-runner.ts';

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string; containers: { image: string }[] };
}
interface CloneSet {
  metadata: { generation: number; annotations?: Record<string, string> };
  spec: { template: { metadata?: { annotations?: Record<string, string> }; spec: { containers: { image: string }[] } }; updateStrategy: { paused?: boolean; partition?: unknown } };
  status?: { observedGeneration?: number; replicas: number; updatedReplicas: number; updatedReadyReplicas: number; updateRevision?: string };
}

describe('kubectl cloneset plugin', () => {
  let manager: E2EManager;
  let ns: { name: string; remove: () => Promise<void> };
  const plugin = (...args: string[]): Promise<Run> => kubectlWithPlugin(['cloneset', ...args, '-n', ns.name]);
  // v1alpha1 by name: a cluster that opted in to v1beta1 would answer the unversioned resource in v1beta1.
  const cloneSet = async (): Promise<CloneSet> => (await getJson<CloneSet>(['clonesets.v1alpha1.apps.kruise.io', 'web', '-n', ns.name]))!;
  const livePods = async (): Promise<Pod[]> =>
    ((await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', 'app=web']))?.items ?? []).filter((p) => !p.metadata.deletionTimestamp);
  const imagesOfPods = async (): Promise<string[]> => (await livePods()).map((p) => p.spec.containers[0]!.image).sort();
  /** The image the CloneSet's pods run, by changing the image with the plugin and recording why. */
  const setImage = async (image: string): Promise<Run> => {
    await kubectl(['annotate', '--overwrite', 'clone', 'web', '-n', ns.name, `kubernetes.io/change-cause=image ${image}`]);
    return plugin('set', 'image', 'clone/web', `main=${image}`);
  };

  beforeAll(async () => {
    ns = await createTestNamespace('plugin');
    manager = await ensureManager(ns.name);
    const manifest = {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'web', annotations: { 'kubernetes.io/change-cause': 'image web:1' } },
      spec: {
        replicas: 4,
        // A new pod needs 3 s to count as available, so rollout status sees a rollout under way.
        minReadySeconds: 3,
        selector: { matchLabels: { app: 'web' } },
        updateStrategy: { type: 'ReCreate', maxUnavailable: 1 },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'web:1' }] } },
      },
    };
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify(manifest));
  });
  afterAll(async () => {
    await manager?.stop();
    await ns?.remove();
  });

  it('is found by kubectl plugin list', async () => {
    const list = await kubectlWithPlugin(['plugin', 'list']);
    expect(list.stdout).toContain(path.join(pluginBinDir, 'kubectl-cloneset'));
  });

  it('rollout status waits for the first rollout and exits 0', async () => {
    const status = await plugin('rollout', 'status', 'clone/web', '--timeout=120s');
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout.trim().split('\n').at(-1)).toBe('clone "web" successfully rolled out');
    expect(await imagesOfPods()).toEqual(['web:1', 'web:1', 'web:1', 'web:1']);
  });

  it('partition and set image: rollout status waits for the partitioned rollout and exits 0', async () => {
    const partition = await plugin('partition', 'clone/web', '2');
    expect(partition).toMatchObject({ code: 0, stdout: 'cloneset.apps.kruise.io/web partition set to 2\n' });
    expect((await cloneSet()).spec.updateStrategy.partition).toBe(2);
    // 8 s per pod, one at a time: the rollout is still under way when rollout status first looks,
    // however long the plugin takes to start on a loaded machine.
    await kubectl(['patch', 'clone', 'web', '-n', ns.name, '--type=merge', '-p', '{"spec":{"minReadySeconds":8}}']);
    const set = await setImage('web:2');
    expect(set).toMatchObject({ code: 0, stdout: 'cloneset.apps.kruise.io/web image updated\n' });
    const status = await plugin('rollout', 'status', 'clone/web', '--timeout=120s');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/Waiting for partitioned roll out to finish: \d out of 2 new pods have been updated\.\.\.\n|Waiting for clone "web" rollout to finish/);
    expect(status.stdout.trim().split('\n').at(-1)).toBe('partitioned roll out complete: 2 new pods have been updated...');
    expect(await imagesOfPods()).toEqual(['web:1', 'web:1', 'web:2', 'web:2']);
    await kubectl(['patch', 'clone', 'web', '-n', ns.name, '--type=merge', '-p', '{"spec":{"minReadySeconds":3}}']);
  });

  it('pods: one row per pod with instance id, revision, lifecycle state and node', async () => {
    const cs = await cloneSet();
    const table = await plugin('pods', 'clone/web');
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trim().split('\n');
    expect(header!.split(/\s+/)).toEqual(['NAME', 'INSTANCE-ID', 'REVISION', 'STATE', 'READY', 'OPS-PHASE', 'OPERATION', 'HELD-BY', 'WAITING-FOR', 'SINCE', 'NODE']);
    const pods = await livePods();
    expect(rows).toHaveLength(pods.length);
    for (const pod of pods) {
      const cells = rows.find((r) => r.startsWith(`${pod.metadata.name} `))!.split(/\s+/);
      const hash = pod.metadata.labels!['controller-revision-hash']!;
      expect(cells[1]).toBe(pod.metadata.labels!['apps.kruise.io/cloneset-instance-id']);
      expect(`${cells[2]} ${cells[3]}`).toBe(`${hash} ${cs.status?.updateRevision === hash ? '(update)' : '(current)'}`);
      // No PodOpsLifecycle phase, operation or rule; the pods at the old revision wait for the partition (2).
      const updated = cs.status?.updateRevision === hash;
      expect(cells.slice(4, 10)).toEqual(['Normal', 'True', '-', '-', '-', updated ? '-' : 'partition']);
      expect(cells[10]).toMatch(/^\d+[smhdy]/);
      expect(cells[11]).toBe(pod.spec.nodeName);
    }
    const json = JSON.parse((await plugin('pods', 'clone/web', '-o', 'json')).stdout) as { items: Pod[] };
    expect(json.items.map((p) => p.metadata.name).sort()).toEqual(pods.map((p) => p.metadata.name).sort());
  });

  it('partition and set image: a refusal of the server prints its field message and exits 1', async () => {
    const schema = await plugin('partition', 'clone/web', 'half');
    expect(schema.code).toBe(1);
    expect(schema.stderr).toMatch(/^Error from server \(Invalid\): CloneSet.apps.kruise.io "web" is invalid: spec.updateStrategy.partition: Invalid value: "half"/);
    const webhook = await plugin('set', 'image', 'clone/web', 'main=');
    expect(webhook.code).toBe(1);
    expect(webhook.stderr).toMatch(/^Error from server \(Invalid\): admission webhook "[^"]+" denied the request: /);
    expect(webhook.stderr).toContain('spec.template.spec.containers[0].image: Required value');
    const cs = await cloneSet();
    expect(cs.spec.updateStrategy.partition).toBe(2);
    expect(cs.spec.template.spec.containers[0]!.image).toBe('web:2');
  });

  it('rollout status exits 1 on a timeout', async () => {
    expect((await plugin('rollout', 'pause', 'clone/web')).stdout).toBe('cloneset.apps.kruise.io/web paused\n');
    await plugin('partition', 'clone/web', '0');
    const status = await plugin('rollout', 'status', 'clone/web', '--timeout=3s');
    expect(status.code).toBe(1);
    expect(status.stdout).toContain('Waiting for clone "web" rollout to finish: 2 out of 4 new replicas have been updated...');
    expect(status.stderr).toBe('error: timed out waiting for the condition\n');
    expect(await plugin('rollout', 'pause', 'clone/web')).toMatchObject({ code: 1, stderr: 'error: clonesets.apps.kruise.io "web" is already paused\n' });
  });

  it('pause stops a rollout mid-way and resume finishes it', async () => {
    // 5 s per pod, one at a time: the rollout lasts long enough to pause it mid-way.
    await kubectl(['patch', 'clone', 'web', '-n', ns.name, '--type=merge', '-p', '{"spec":{"minReadySeconds":5}}']);
    await setImage('web:3');
    await plugin('rollout', 'resume', 'clone/web');
    await eventually(
      'the rollout under way',
      async () => {
        const cs = await cloneSet();
        return cs.status?.observedGeneration === cs.metadata.generation && cs.status.updatedReplicas >= 1;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(await plugin('rollout', 'pause', 'clone/web')).toMatchObject({ code: 0, stdout: 'cloneset.apps.kruise.io/web paused\n' });
    await eventually('the pause observed', async () => {
      const cs = await cloneSet();
      return cs.status?.observedGeneration === cs.metadata.generation;
    });
    const held = (await cloneSet()).status!.updatedReplicas;
    expect(held).toBeLessThan(4);
    await new Promise((r) => setTimeout(r, 6_000));
    const stillHeld = (await cloneSet()).status!;
    expect(stillHeld.updatedReplicas).toBe(held);
    expect(stillHeld.updatedReplicas).toBeLessThan(4);
    expect((await imagesOfPods()).filter((i) => i === 'web:3').length).toBeLessThan(4);

    expect(await plugin('rollout', 'resume', 'clone/web')).toMatchObject({ code: 0, stdout: 'cloneset.apps.kruise.io/web resumed\n' });
    expect(await plugin('rollout', 'resume', 'clone/web')).toMatchObject({ code: 1, stderr: 'error: clonesets.apps.kruise.io "web" is not paused\n' });
    const status = await plugin('rollout', 'status', 'clone/web', '--timeout=120s');
    expect(status.code).toBe(0);
    expect(status.stdout.trim().split('\n').at(-1)).toBe('clone "web" successfully rolled out');
    expect(await imagesOfPods()).toEqual(['web:3', 'web:3', 'web:3', 'web:3']);
    await kubectl(['patch', 'clone', 'web', '-n', ns.name, '--type=merge', '-p', '{"spec":{"minReadySeconds":3}}']);
  });

  it('history lists the revisions with their change cause and shows one revision with its diff', async () => {
    const history = await plugin('rollout', 'history', 'clone/web');
    expect(history.code).toBe(0);
    expect(history.stdout).toBe(['cloneset.apps.kruise.io/web', 'REVISION   CHANGE-CAUSE', '1          image web:1', '2          image web:2', '3          image web:3', '', ''].join('\n'));
    const two = await plugin('rollout', 'history', 'clone/web', '--revision=2');
    expect(two.code).toBe(0);
    expect(two.stdout).toContain('cloneset.apps.kruise.io/web with revision #2\n');
    expect(two.stdout).toContain('Change-cause: image web:2');
    expect(two.stdout).toMatch(/Changes from revision 1:[\s\S]*-.*image: web:1\n.*\+.*image: web:2/);
    expect(await plugin('rollout', 'history', 'clone/web', '--revision=9')).toMatchObject({ code: 1 });
  });

  it('undo --to-revision restores that template and the pods follow', async () => {
    const undo = await plugin('rollout', 'undo', 'clone/web', '--to-revision=1');
    expect(undo).toMatchObject({ code: 0, stdout: 'cloneset.apps.kruise.io/web rolled back\n' });
    expect((await cloneSet()).spec.template.spec.containers[0]!.image).toBe('web:1');
    const status = await plugin('rollout', 'status', 'clone/web', '--timeout=120s');
    expect(status.code).toBe(0);
    expect(await imagesOfPods()).toEqual(['web:1', 'web:1', 'web:1', 'web:1']);
    // The controller reused revision 1's ControllerRevision and gave it the next number, as for a StatefulSet.
    const history = JSON.parse((await plugin('rollout', 'history', 'clone/web', '-o', 'json')).stdout) as { items: { revision: number }[] };
    const latest = Math.max(...history.items.map((r) => r.revision));
    expect(history.items.map((r) => r.revision).sort()).toEqual([2, 3, 4]);
    expect(await plugin('rollout', 'undo', 'clone/web', `--to-revision=${latest}`)).toMatchObject({
      code: 0,
      stdout: `cloneset.apps.kruise.io/web skipped rollback (current template already matches revision ${latest})\n`,
    });
    expect(await plugin('rollout', 'undo', 'clone/web', '--to-revision=1')).toMatchObject({ code: 1, stderr: 'error: unable to find specified revision 1 in history\n' });
    // Plain undo goes back to the newest other revision: web:3.
    expect((await plugin('rollout', 'undo', 'clone/web')).code).toBe(0);
    expect((await cloneSet()).spec.template.spec.containers[0]!.image).toBe('web:3');
  });

  it('restart stamps the template as kubectl does, with --kubeconfig and --context given explicitly', async () => {
    const context = (await kubectl(['config', 'current-context'])).trim();
    const restart = await kubectlWithPlugin(['cloneset', 'rollout', 'restart', 'clone/web', '-n', ns.name, `--kubeconfig=${testKubeconfigPath()}`, `--context=${context}`, '-o', 'yaml']);
    expect(restart.code).toBe(0);
    expect(restart.stdout).toContain('kubectl.kubernetes.io/restartedAt');
    const stamped = (await cloneSet()).spec.template.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'];
    expect(Date.now() - Date.parse(stamped ?? '')).toBeLessThan(60_000);
    expect((await plugin('rollout', 'status', 'clone/web', '--timeout=120s')).code).toBe(0);
    const wrong = await kubectlWithPlugin(['cloneset', 'rollout', 'restart', 'clone/web', '-n', ns.name, '--context=no-such-context']);
    expect(wrong).toMatchObject({ code: 1, stderr: 'error: context was not found for specified context: no-such-context\n' });
  });

  it('pods -w prints the table again when the pods change', async () => {
    const child = spawn('kubectl', ['cloneset', 'pods', 'clone/web', '-w', '-n', ns.name], {
      env: pluginEnv(),
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const tables = (): string[][] => out.split('\n\n').filter((t) => t.startsWith('NAME')).map((t) => t.trim().split('\n').slice(1));
    try {
      await eventually('the first table', () => Promise.resolve(tables().length >= 1));
      expect(tables()[0]).toHaveLength(4);
      await kubectl(['scale', 'clone', 'web', '-n', ns.name, '--replicas=5']);
      await eventually('a table with the fifth pod', () => Promise.resolve(tables().some((rows) => rows.length === 5)), { timeoutMs: 60_000 });
    } finally {
      child.kill('SIGINT');
    }
  });

  it('rollout status exits 1 with the condition when the CloneSet can no longer progress', async () => {
    const stuck = {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'stuck' },
      spec: {
        replicas: 1,
        progressDeadlineSeconds: 3,
        selector: { matchLabels: { app: 'stuck' } },
        // No node has this label: the pod stays Pending and the rollout cannot finish.
        template: { metadata: { labels: { app: 'stuck' } }, spec: { nodeSelector: { 'example.com/none': 'true' }, containers: [{ name: 'main', image: 'web:1' }] } },
      },
    };
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify(stuck));
    const status = await plugin('rollout', 'status', 'clone/stuck', '--timeout=90s');
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(/^error: clone "stuck" exceeded its progress deadline \(condition Progressing=False, reason ProgressDeadlineExceeded: .+\)\n$/);
  });

  it('names a missing CloneSet as the server does', async () => {
    const missing = await plugin('rollout', 'status', 'clone/nope');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error from server (NotFound): clonesets.apps.kruise.io "nope" not found\n');
  });
});
