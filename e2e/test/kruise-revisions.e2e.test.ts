// The way back is as clean as the way in: every CloneSet OpenKruise
// v1.8.4 made in packages/local-cluster/testdata/kruise-revisions.json, applied here with replicas 0 through
// our webhooks, gets the revision OpenKruise made for it: the same name, the same data bytes, the
// same hash label. Later entries of one CloneSet (rollout, collision) replace its template in
// turn; the collision case first plants the foreign revision that made kruise count a collision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestNamespace,
  eventually,
  firstByteDifference,
  getJson,
  kubectl,
  loadKruiseRevisions,
  revisionDataBytes,
  toExactJson,
  type KruiseRevisionEntry,
} from '@cloneset-suite/local-cluster';
import { ensureManager, type E2EManager } from './manager.ts';

interface CloneSetStatus {
  status?: { updateRevision?: string; collisionCount?: number; observedGeneration?: number };
  metadata: { generation?: number };
}
interface Revision {
  metadata: { labels?: Record<string, string> };
}

const entries = loadKruiseRevisions();
// After a collision kruise renames the revision but does not relabel it: the label keeps the
// hash of the first try (README of the test data).
const LABEL_HASH: Record<string, string> = { 'collision-b4956664b': 'b4956664c' };
const byCloneSet = Map.groupBy(entries, (e) => e.cloneSet.metadata.name);

describe('ControllerRevisions byte-identical to OpenKruise v1.8.4', () => {
  let manager: E2EManager;
  let ns: { name: string; remove: () => Promise<void> };

  beforeAll(async () => {
    ns = await createTestNamespace('e2e-kr');
    manager = await ensureManager(ns.name);
  });
  afterAll(async () => {
    await manager?.stop();
    await ns?.remove();
  });

  /** Waits for the CloneSet to settle on a revision, then checks it against the entry. */
  async function expectRevisionOf(entry: KruiseRevisionEntry): Promise<void> {
    const name = entry.cloneSet.metadata.name;
    const cs = await eventually(`${name}: status for its latest spec`, async () => {
      const c = await getJson<CloneSetStatus>(['clone', name, '-n', ns.name]);
      return c?.status?.updateRevision && c.status.observedGeneration === c.metadata.generation ? c : undefined;
    });
    const actual = cs.status!.updateRevision!;
    const bytes = await revisionDataBytes(ns.name, actual);
    expect(firstByteDifference(entry.data, bytes), `${entry.revisionName} (${entry.note})`).toBeUndefined();
    expect(actual).toBe(entry.revisionName);
    expect(cs.status?.collisionCount ?? 0).toBe(entry.collisionCount);
    const revision = await getJson<Revision>(['controllerrevision', actual, '-n', ns.name]);
    expect(revision?.metadata.labels?.['controller.kubernetes.io/hash']).toBe(LABEL_HASH[entry.revisionName] ?? entry.hash);
  }

  it.each([...byCloneSet.entries()])('%s', async (name, [first, ...later]) => {
    if (name === 'collision') {
      // The foreign revision kruise found under the count-0 name, with other data.
      await kubectl(['create', '-n', ns.name, '-f', '-'], JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: { name: 'collision-b4956664c', labels: { app: 'collision' } },
        data: { spec: { template: { $patch: 'replace', metadata: { labels: { app: 'squatter' } } } } },
        revision: 1,
      }));
    }
    const { namespace: _namespace, ...metadata } = first!.cloneSet.metadata;
    const manifest = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', ...first!.cloneSet, metadata, spec: { ...first!.cloneSet.spec, replicas: 0 } };
    await kubectl(['create', '-n', ns.name, '-f', '-'], toExactJson(manifest));
    await expectRevisionOf(first!);
    for (const entry of later) {
      const patch = [{ op: 'replace', path: '/spec/template', value: entry.cloneSet.spec.template }];
      await kubectl(['patch', 'clone', name, '-n', ns.name, '--type=json', '-p', toExactJson(patch)]);
      await expectRevisionOf(entry);
    }
  });
});
