// Recreate updates announce themselves (OpenKruise's recreate update; OpenKruise's CloneSet Events): one Normal SuccessfulUpdatePodReCreate
// per pod marked for recreation, under ReCreate and when InPlaceIfPossible cannot update in place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { apply, cloneSetManifest, getCloneSet, podsOf, revisionOf, waitNewRevision, waitSettled, setUpRollout } from './rollout-kit.ts';
import { listEvents } from './support.ts';

const patchTemplate = (ns: string, name: string, ops: unknown[]) => kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify(ops)]);
const recreateEvents = async (ns: string, cloneSet: string) =>
  (await listEvents(ns, 'SuccessfulUpdatePodReCreate')).filter((e) => e.involvedObject?.name === cloneSet);

describe('recreate update events', () => {
  let ns: string;
  let tearDown: () => Promise<void>;

  beforeAll(async () => {
    ({ ns, tearDown } = await setUpRollout('cs-roll-recreate-ev'));
  });
  afterAll(async () => {
    await tearDown?.();
  });

  it('ReCreate with partition 3 of 5: two pods recreated, one SuccessfulUpdatePodReCreate each, naming the pod and revision', async () => {
    const name = 'recreate';
    await apply(ns, cloneSetManifest(name, { replicas: 5, updateStrategy: { type: 'ReCreate', maxUnavailable: 1, partition: 3 } }));
    const original = (await waitSettled(ns, name, 5)).status?.updateRevision ?? '';
    const before = new Set((await podsOf(ns, name)).map((p) => p.metadata.name));
    await patchTemplate(ns, name, [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.26' }]);
    const target = await waitNewRevision(ns, name, original);
    await eventually('2 pods at the new revision, all 5 available', async () => {
      const cs = await getCloneSet(ns, name);
      return cs.status?.updatedReplicas === 2 && cs.status.availableReplicas === 5 && cs.status.updatedAvailableReplicas === 2;
    }, { timeoutMs: 45_000 });
    const after = new Set((await podsOf(ns, name)).map((p) => p.metadata.name));
    const recreated = [...before].filter((n) => !after.has(n));
    const events = await eventually('two SuccessfulUpdatePodReCreate events', async () => {
      const e = await recreateEvents(ns, name);
      return e.length >= 2 ? e : undefined;
    }, { timeoutMs: 10_000 });
    expect(events.map((e) => e.type)).toEqual(['Normal', 'Normal']);
    const messages = events.map((e) => e.message ?? e.note ?? '');
    for (const m of messages) expect(m).toMatch(new RegExp(`^successfully patch pod ${name}-\\w+ specified-delete for update\\(revision ${target}\\)$`));
    expect(new Set(messages).size).toBe(2);
    expect(recreated).toHaveLength(2);
    for (const n of recreated) expect(messages.some((m) => m.includes(`pod ${n} `))).toBe(true);
    expect((await podsOf(ns, name)).filter((p) => revisionOf(p) === target)).toHaveLength(2);
  });

  it('InPlaceIfPossible with an env change (not in-place-able): the recreation is announced the same way', async () => {
    const name = 'inplace-env';
    await apply(ns, cloneSetManifest(name, { replicas: 2, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }));
    const original = (await waitSettled(ns, name, 2)).status?.updateRevision ?? '';
    await patchTemplate(ns, name, [{ op: 'add', path: '/spec/template/spec/containers/0/env', value: [{ name: 'MODE', value: 'b' }] }]);
    await waitNewRevision(ns, name, original);
    await waitSettled(ns, name, 2, 45_000);
    const events = await eventually('one SuccessfulUpdatePodReCreate per pod', async () => {
      const e = await recreateEvents(ns, name);
      return e.length >= 2 ? e : undefined;
    }, { timeoutMs: 10_000 });
    expect(events).toHaveLength(2);
  });
});
