import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { canonicalQuantity, semanticallyEqual } from '../../src/core/revisions/canonical.ts';
import { SAFE_ALPHABET, revisionDataText, revisionHash } from '../../src/core/revisions/revision-bytes.ts';
import {
  computeRevisions,
  planHistoryTruncation,
  revisionData,
  revisionLabels,
  revisionName,
  templateOfRevision,
  templatesEqual,
} from '../../src/core/revisions/revisions.ts';
import { cloneSet, pod, templateWithImage, CS_UID } from './fixtures.ts';

function rev(name: string, revision: number, template: unknown, owner = CS_UID): V1ControllerRevision {
  return {
    metadata: { name, ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs', uid: owner, controller: true }] },
    revision,
    data: revisionData(template as never),
  };
}

// Shape of a revision written by Go's encoder for the fixture template.
const goEncoded = {
  metadata: { creationTimestamp: null, labels: { app: 'demo' } },
  spec: {
    containers: [{ name: 'main', image: 'nginx:1', resources: {}, stdin: false }],
    volumes: [],
  },
};

describe('normalisation and semantic equality', () => {
  it('ignores Go encoder artefacts but not real changes', () => {
    const live = cloneSet().spec.template;
    expect(semanticallyEqual(goEncoded, live)).toBe(true);
    expect(semanticallyEqual({ ...goEncoded, spec: { containers: [{ name: 'main', image: 'nginx:2' }] } }, live)).toBe(false);
    expect(semanticallyEqual({ spec: { automountServiceAccountToken: false } }, { spec: {} })).toBe(false);
    expect(semanticallyEqual({ metadata: { labels: { a: '' } } }, { metadata: { labels: {} } })).toBe(false);
  });

  it.each([
    ['1', '1000m'],
    ['1Gi', '1073741824'],
    ['0.5', '500m'],
    ['1e3', '1k'],
    [2, '2'],
  ])('quantity %s == %s', (a, b) => {
    expect(canonicalQuantity(a)).toBe(canonicalQuantity(b));
  });

  it('resources quantities compare by value', () => {
    const a = { spec: { containers: [{ name: 'c', resources: { limits: { cpu: '1000m', memory: '1Gi' } } }] } };
    const b = { spec: { containers: [{ name: 'c', resources: { limits: { cpu: '1', memory: '1024Mi' } } }] } };
    expect(semanticallyEqual(a, b)).toBe(true);
  });

  it('is insensitive to key order (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.string({ minLength: 1, maxLength: 5 })), (labels) => {
        const reversed = Object.fromEntries(Object.entries(labels).reverse());
        return semanticallyEqual({ metadata: { labels } }, { metadata: { labels: reversed } });
      }),
    );
  });
});

/** Data as an earlier version of this controller stored it: the template as given, plus $patch. */
function oldFormRev(name: string, revision: number, template: Record<string, unknown>): V1ControllerRevision {
  return { ...rev(name, revision, {}), data: { spec: { template: { ...template, $patch: 'replace' } } } };
}

const hashOf = (template: unknown, collisionCount = 0) => revisionHash(revisionDataText(template), collisionCount);

describe('hash and names', () => {
  it('is deterministic, in the safe alphabet, and depends on collisionCount', () => {
    const t = cloneSet().spec.template;
    const h = hashOf(t);
    expect(h).toBe(hashOf(goEncoded)); // the same bytes for what Go cannot tell apart
    expect(h).not.toBe(hashOf(t, 1));
    expect(h).toMatch(new RegExp(`^[${SAFE_ALPHABET}]{1,10}$`));
    expect(revisionName('sample', h)).toBe(`sample-${h}`);
    expect(revisionName('x'.repeat(300), 'h')).toHaveLength(225);
  });

  it('compares templates as Go sees them: an omitempty zero or an unknown field is no change', () => {
    const t = cloneSet().spec.template;
    const withZeros = { ...t, spec: { ...t.spec, containers: [{ ...t.spec!.containers[0]!, readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 0 } }] } };
    const withoutZeros = { ...t, spec: { ...t.spec, containers: [{ ...t.spec!.containers[0]!, readinessProbe: { exec: { command: ['true'] } } }] } };
    expect(templatesEqual(withZeros, withoutZeros)).toBe(true);
    expect(templatesEqual(t, { ...t, spec: { ...t.spec, futureField: 1 } })).toBe(true);
    expect(templatesEqual(withZeros, t)).toBe(false);
  });

  it('revision labels: full name, or short hash under CloneSetShortHash', () => {
    expect(revisionLabels('cs-abc', {})).toEqual({ 'controller-revision-hash': 'cs-abc', 'pod-template-hash': 'abc' });
    expect(revisionLabels('cs-abc', { CloneSetShortHash: true })).toEqual({ 'controller-revision-hash': 'abc', 'pod-template-hash': 'abc' });
  });
});

describe('computeRevisions', () => {
  it('first reconcile creates one revision; current = update', () => {
    const cs = cloneSet();
    const r = computeRevisions({ cs, revisions: [] });
    expect(r.actions).toHaveLength(1);
    expect(r.actions[0]!.kind).toBe('createRevision');
    expect(r.updateRevision.revision).toBe(1);
    expect(r.currentRevision).toBe(r.updateRevision);
    expect(r.updateRevision.metadata!.labels!['controller.kubernetes.io/hash']).toBe(hashOf(cs.spec.template));
    expect(r.updateRevision.metadata!.name).toBe(`cs-${hashOf(cs.spec.template)}`);
    expect(r.updateRevision.metadata!.ownerReferences![0]!.controller).toBe(true);
    const action = r.actions[0]!;
    if (action.kind !== 'createRevision') throw new Error('expected createRevision');
    expect(action.data).toBe(revisionDataText(cs.spec.template));
    expect(r.updateRevision.data).toEqual(JSON.parse(action.data));
    expect(templatesEqual(templateOfRevision(r.updateRevision), cs.spec.template)).toBe(true);
  });

  it('adopts a revision an earlier version wrote (old hash, raw template data) without a new one', () => {
    const cs = cloneSet({}, { status: { currentRevision: 'cs-oldhash' } });
    const t = cs.spec.template as Record<string, unknown>;
    const r = computeRevisions({ cs, revisions: [oldFormRev('cs-oldhash', 1, { ...t, spec: { ...(t.spec as object), hostNetwork: false, volumes: [] } })] });
    expect(r.actions).toEqual([]);
    expect(r.updateRevision.metadata!.name).toBe('cs-oldhash');
  });

  it('after a template change, creates the new revision in the OpenKruise form next to an old-form one', () => {
    const cs = cloneSet({}, { status: { currentRevision: 'cs-oldhash' } });
    const r = computeRevisions({ cs, revisions: [oldFormRev('cs-oldhash', 1, templateWithImage('nginx:0'))] });
    expect(r.currentRevision.metadata!.name).toBe('cs-oldhash');
    expect(r.actions).toEqual([{ kind: 'createRevision', revision: r.updateRevision, data: revisionDataText(cs.spec.template) }]);
    expect(r.updateRevision.metadata!.name).toBe(`cs-${hashOf(cs.spec.template)}`);
  });

  it('takes over a foreign-hash revision with an equal template (zero disruption)', () => {
    const cs = cloneSet({}, { status: { currentRevision: 'cs-d4d4fb5bd' } });
    const r = computeRevisions({ cs, revisions: [rev('cs-d4d4fb5bd', 3, goEncoded)] });
    expect(r.actions).toEqual([]);
    expect(r.updateRevision.metadata!.name).toBe('cs-d4d4fb5bd');
    expect(r.currentRevision.metadata!.name).toBe('cs-d4d4fb5bd');
  });

  it('a template change creates revision n+1 and keeps current', () => {
    const old = rev('cs-old', 1, { metadata: { labels: { app: 'demo' } }, spec: { containers: [{ name: 'main', image: 'nginx:0' }] } });
    const cs = cloneSet({}, { status: { currentRevision: 'cs-old' } });
    const r = computeRevisions({ cs, revisions: [old] });
    expect(r.updateRevision.revision).toBe(2);
    expect(r.currentRevision.metadata!.name).toBe('cs-old');
  });

  it('rollback to an older template bumps its .revision and keeps its name', () => {
    const cs = cloneSet({}, { status: { currentRevision: 'cs-new' } });
    const older = rev('cs-older', 1, cs.spec.template);
    const newer = rev('cs-new', 2, { spec: { containers: [{ name: 'main', image: 'nginx:9' }] } });
    const r = computeRevisions({ cs, revisions: [newer, older] });
    expect(r.updateRevision.metadata!.name).toBe('cs-older');
    expect(r.updateRevision.revision).toBe(3);
    expect(r.actions).toEqual([{ kind: 'updateRevision', name: 'cs-older', revision: 3 }]);
  });

  it('increments collisionCount when the name is taken by a different template; the label keeps the first hash', () => {
    const cs = cloneSet();
    const name0 = revisionName('cs', hashOf(cs.spec.template, 0));
    const squatter = rev(name0, 1, { spec: { containers: [{ name: 'x', image: 'y' }] } });
    const r = computeRevisions({ cs, revisions: [squatter] });
    expect(r.collisionCount).toBe(1);
    expect(r.updateRevision.metadata!.name).toBe(revisionName('cs', hashOf(cs.spec.template, 1)));
    expect(r.updateRevision.metadata!.labels!['controller.kubernetes.io/hash']).toBe(hashOf(cs.spec.template, 0));
  });

  it('counts a collision with a revision of another owner, which the history does not list', () => {
    const cs = cloneSet();
    const name0 = revisionName('cs', hashOf(cs.spec.template, 0));
    const r = computeRevisions({ cs, revisions: [], nameTaken: (name) => name === name0 });
    expect(r.collisionCount).toBe(1);
    expect(r.updateRevision.metadata!.name).toBe(revisionName('cs', hashOf(cs.spec.template, 1)));
  });

  it('ignores revisions controlled by another owner', () => {
    const cs = cloneSet();
    const foreign = rev('cs-zzz', 5, cs.spec.template, 'uid-other');
    const r = computeRevisions({ cs, revisions: [foreign] });
    expect(r.actions[0]!.kind).toBe('createRevision');
    expect(r.updateRevision.revision).toBe(1);
  });

  it('current falls back to update when status.currentRevision is gone', () => {
    const cs = cloneSet({}, { status: { currentRevision: 'cs-gone' } });
    const r = computeRevisions({ cs, revisions: [] });
    expect(r.currentRevision).toBe(r.updateRevision);
  });
});

describe('history truncation', () => {
  const revs = [1, 2, 3, 4, 5, 6].map((n) => rev(`cs-r${n}`, n, {}));
  it.each([
    [undefined, []],
    [2, []],
    [1, ['cs-r1']],
    [0, ['cs-r1', 'cs-r3']],
  ])('limit %s deletes %o, keeping live ones', (limit, want) => {
    const claimedPods = [pod({ rev: 'r2' }), pod({ rev: 'cs-r4' })]; // short-hash match keeps r2
    const actions = planHistoryTruncation(revs, { currentRevision: 'cs-r5', updateRevision: 'cs-r6', claimedPods }, limit);
    expect(actions.map((a) => (a.kind === 'deleteRevision' ? a.name : ''))).toEqual(want);
  });
});
