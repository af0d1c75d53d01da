// The way back from a cluster an earlier version of this controller ran:
// its revisions have our old hash and hold the template as given (no Go encoding). They are still
// adopted without touching a pod, and the next template change creates a revision in OpenKruise's
// exact form (name from FNV-1 of Go's bytes), again touching no pod of the old revision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, firstByteDifference, kubectl, revisionDataBytes } from '@cloneset-suite/local-cluster';
import { revisionDataText, revisionHash } from '../../src/core/revisions/revision-bytes.ts';
import { installCrds, isPodWrite, startController, withNamespace, type RunningController } from './harness.ts';
import { REVISION_LABEL, apply, cloneSet, getCloneSet, listPods, listRevisions, podWriteKey, readyPods, sleep, type Pod } from './support.ts';

// A name as the earlier version made it (sha256-based, the same safe alphabet).
const OLD_HASH = '7f5d98cb4';
const OLD = `ok-${OLD_HASH}`;

describe('revisions after an earlier version: adopted as they are, new ones in OpenKruise form', () => {
  let ns: string;
  let removeNs: () => Promise<void>;
  let controller: RunningController | undefined;
  let before: Pod[];

  beforeAll(async () => {
    await installCrds();
    ({ name: ns, remove: removeNs } = await withNamespace('cs-krform'));
    // An omitempty zero (initialDelaySeconds: 0) that Go's encoding drops: no change for either form.
    // Integer-like annotation keys: Go sorts "10" before "9", a JavaScript object the other way
    // round, so the stored bytes show whether the data went to the apiserver verbatim.
    const manifest = cloneSet('ok', 2, { updateStrategy: { type: 'ReCreate', partition: 2 } }, {
      annotations: { '9': 'nine', '10': '<b>ten & more</b>' },
      spec: { containers: [{ name: 'main', image: 'nginx:alpine', readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 0 } }] },
    }) as { spec: { template: Record<string, unknown> } };
    await apply(ns, manifest);
    const cs = (await getCloneSet(ns, 'ok'))!;
    await apply(ns, {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: OLD,
        labels: { app: 'ok', 'controller.kubernetes.io/hash': OLD_HASH },
        ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'ok', uid: cs.metadata.uid, controller: true, blockOwnerDeletion: true }],
      },
      // The earlier version's form: the template as stored, plus the directive.
      data: { spec: { template: { ...manifest.spec.template, $patch: 'replace' } } },
      revision: 1,
    });
  });
  afterAll(async () => {
    await controller?.stop();
    await removeNs?.();
  });

  it('adopts the old-hash revision and creates the pods at it, with no new revision', async () => {
    controller = startController(ns);
    await eventually('status at the old revision', async () => {
      const c = await getCloneSet(ns, 'ok');
      return c?.status?.updateRevision === OLD && c.status.currentRevision === OLD && c.status.readyReplicas === 2;
    }, { timeoutMs: 60_000 });
    before = await readyPods(ns, 'app=ok', 2);
    expect(before.map((p) => p.metadata.labels?.[REVISION_LABEL])).toEqual([OLD, OLD]);
    expect((await listRevisions(ns)).map((r) => r.metadata.name)).toEqual([OLD]);
    await sleep(1_500);
    before = await listPods(ns, 'app=ok');
  });

  it('a template change creates the revision OpenKruise would, touching no pod of the old one', async () => {
    const writesBefore = controller!.requests().length;
    await kubectl(['patch', 'clone', 'ok', '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27-alpine' }])]);
    const cs = await eventually('a new update revision', async () => {
      const c = await getCloneSet(ns, 'ok');
      return c?.status?.updateRevision && c.status.updateRevision !== OLD && c.status.observedGeneration === c.metadata.generation ? c : undefined;
    });
    const data = revisionDataText((cs.spec as { template: unknown }).template);
    const name = `ok-${revisionHash(data, 0)}`;
    expect(cs.status).toMatchObject({ updateRevision: name, currentRevision: OLD, updatedReplicas: 0 });
    expect(firstByteDifference(data, await revisionDataBytes(ns, name))).toBeUndefined();
    expect(data).toContain('"creationTimestamp":null');
    expect(data).toContain('"annotations":{"10":"\\u003cb\\u003eten \\u0026 more\\u003c/b\\u003e","9":"nine"}');
    expect((await listRevisions(ns)).map((r) => r.metadata.name).sort()).toEqual([OLD, name].sort());
    await sleep(2_000);
    expect(controller!.requests().slice(writesBefore).filter(isPodWrite)).toEqual([]);
    expect((await listPods(ns, 'app=ok')).map(podWriteKey).sort()).toEqual(before.map(podWriteKey).sort());
  });
});
