import type { CloneSet } from '@cloneset-suite/api-types';
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { historyOf, historyTable, revisionDetail, undoDecision } from '../../src/core/history.ts';

const template = (image: string): Record<string, unknown> => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image }] } });

function revision(n: number, image: string, o: { owner?: string; cause?: string; name?: string } = {}): V1ControllerRevision {
  return {
    metadata: {
      name: o.name ?? `web-${n}`,
      ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid: o.owner ?? 'uid-1', controller: true }],
      ...(o.cause ? { annotations: { 'kubernetes.io/change-cause': o.cause } } : {}),
    },
    revision: n,
    data: { spec: { template: { ...template(image), $patch: 'replace' } } },
  };
}

const cloneSet = (image: string, updateRevision: string): CloneSet =>
  ({ metadata: { name: 'web', uid: 'uid-1' }, spec: { selector: {}, template: template(image) }, status: { updateRevision } }) as unknown as CloneSet;

describe('historyOf / historyTable', () => {
  it('keeps the revisions the CloneSet controls, oldest first, with their change cause', () => {
    const entries = historyOf(cloneSet('web:3', 'web-3'), [revision(3, 'web:3', { cause: 'to 3' }), revision(1, 'web:1'), revision(2, 'web:9', { owner: 'someone-else' })]);
    expect(entries.map((e) => [e.revision, e.changeCause])).toEqual([
      [1, undefined],
      [3, 'to 3'],
    ]);
    expect(entries[0]!.template).toEqual(template('web:1'));
    expect(historyTable(entries)).toEqual([
      ['REVISION', 'CHANGE-CAUSE'],
      ['1', '<none>'],
      ['3', 'to 3'],
    ]);
  });
});

describe('undoDecision', () => {
  const revisions = [revision(1, 'web:1'), revision(2, 'web:2'), revision(3, 'web:3')];
  const cases: [string, CloneSet, number, V1ControllerRevision[], string][] = [
    ['default: the revision before the update revision', cloneSet('web:3', 'web-3'), 0, revisions, 'rollback 2'],
    ['default after an undo: the newest other revision', cloneSet('web:1', 'web-1'), 0, revisions, 'rollback 3'],
    ['default skips a revision equal to the template', cloneSet('web:2', 'web-3'), 0, revisions, 'rollback 3'],
    ['to a revision', cloneSet('web:3', 'web-3'), 1, revisions, 'rollback 1'],
    ['to the revision in place', cloneSet('web:3', 'web-3'), 3, revisions, 'skip: skipped rollback (current template already matches revision 3)'],
    ['to a missing revision', cloneSet('web:3', 'web-3'), 7, revisions, 'error: unable to find specified revision 7 in history'],
    ['no history', cloneSet('web:3', 'web-3'), 0, [], 'error: no rollout history found for clone "web"'],
    ['only the current revision', cloneSet('web:3', 'web-3'), 0, [revision(3, 'web:3')], 'error: no last revision to roll back to'],
  ];
  it.each(cases)('%s', (_, cs, to, revs, expected) => {
    const d = undoDecision(cs, historyOf(cs, revs), to);
    expect(d.kind === 'rollback' ? `rollback ${d.entry.revision}` : `${d.kind}: ${d.message}`).toBe(expected);
  });
});

describe('revisionDetail', () => {
  const entries = historyOf(cloneSet('web:2', 'web-2'), [revision(1, 'web:1'), revision(2, 'web:2', { cause: 'bump' })]);
  it('shows the template and the diff from the revision before', () => {
    const text = revisionDetail(entries, 2);
    expect(text).toContain('Revision: 2 (web-2)\nChange-cause: bump\nPod Template:\n  metadata:\n');
    expect(text).toContain('Changes from revision 1:\n  --- revision 1\n  +++ revision 2\n');
    expect(text).toMatch(/\n {2}-\s+- image: web:1\n {2}\+\s+- image: web:2\n/);
  });
  it('says when a revision is the first', () => {
    expect(revisionDetail(entries, 1)).toContain('Changes: the first revision in the history');
  });
  it('refuses an unknown revision', () => {
    expect(() => revisionDetail(entries, 5)).toThrow('unable to find the specified revision 5');
  });
});
