import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLONESET_GVK, KRUISE_ANNOTATIONS, KRUISE_LABELS, KRUISE_READINESS_GATES, KUSION_CONTROL_LABEL, LIFECYCLE_STATES, PODTRANSITIONRULE_GVK, POL_LABELS, POL_PER_ID_PREFIXES, POL_PREFIXES, PTR_PROTECTION_FINALIZER, isKusionControlled, lifecycleIds, nanoTimestamp, nanoTimestampToDate, parseNanoTimestamp, parsePolKey, ptrDetailsOf, polKey, ptrDetailAnnotation } from '../../src/index.ts';
import { POL_ID_SOURCE_PREFIXES } from '../../src/keys/podopslifecycle.ts';
import { PTR_DETAIL_ANNOTATION_PREFIX, parsePtrDetailAnnotation } from '../../src/keys/transition-rule.ts';
import { qualifiedNameErrors } from '../../src/names.ts';

describe('well-known keys are byte-compatible with the anchors', () => {
  it.each([
    [KRUISE_LABELS.cloneSetInstanceId, 'apps.kruise.io/cloneset-instance-id'],
    [KRUISE_LABELS.controllerRevisionHash, 'controller-revision-hash'],
    [KRUISE_LABELS.lifecycleState, 'lifecycle.apps.kruise.io/state'],
    [KRUISE_LABELS.specifiedDelete, 'apps.kruise.io/specified-delete'],
    [KRUISE_ANNOTATIONS.inPlaceUpdateState, 'apps.kruise.io/inplace-update-state'],
    [KRUISE_ANNOTATIONS.podDeletionCost, 'controller.kubernetes.io/pod-deletion-cost'],
    [KRUISE_READINESS_GATES.inPlaceUpdateReady, 'InPlaceUpdateReady'],
    [KRUISE_READINESS_GATES.kruisePodReady, 'KruisePodReady'],
    [POL_LABELS.serviceAvailable, 'podopslifecycle.kusionstack.io/service-available'],
    [KUSION_CONTROL_LABEL, 'kusionstack.io/control'],
    [PTR_PROTECTION_FINALIZER, 'finalizer.operating.kusionstack.io/protected'],
    [CLONESET_GVK.apiVersion, 'apps.kruise.io/v1alpha1'],
    [PODTRANSITIONRULE_GVK.apiVersion, 'apps.kusionstack.io/v1alpha1'],
  ])('%s', (actual, expected) => {
    expect(actual).toBe(expected);
  });

  it('every label and annotation key is a valid qualified name', () => {
    const keys = [...Object.values(KRUISE_LABELS), ...Object.values(KRUISE_ANNOTATIONS), ...Object.values(POL_LABELS), KUSION_CONTROL_LABEL];
    for (const key of keys.filter((k) => !k.endsWith('/'))) expect(qualifiedNameErrors(key)).toEqual([]);
  });

  it('lists the six lifecycle states', () => {
    expect(Object.values(LIFECYCLE_STATES)).toEqual(['PreparingNormal', 'Normal', 'PreparingUpdate', 'Updating', 'Updated', 'PreparingDelete']);
  });

  it('W holds every per-id prefix except operation-permission', () => {
    expect(POL_PER_ID_PREFIXES).toHaveLength(Object.keys(POL_PREFIXES).length - 1);
    expect(POL_PER_ID_PREFIXES).not.toContain(POL_PREFIXES.operationPermission);
  });
});

describe('PodOpsLifecycle per-id keys', () => {
  it('builds and parses operating.podopslifecycle.kusionstack.io/<id>', () => {
    expect(polKey(POL_PREFIXES.operating, 'cloneset')).toBe('operating.podopslifecycle.kusionstack.io/cloneset');
    expect(parsePolKey('operate.podopslifecycle.kusionstack.io/cloneset')).toEqual({ prefix: POL_PREFIXES.operate, id: 'cloneset' });
    expect(parsePolKey('operation-permission.podopslifecycle.kusionstack.io/update')).toEqual({ prefix: POL_PREFIXES.operationPermission, id: 'update' });
  });

  it.each([
    ['operating.podopslifecycle.kusionstack.io', { invalid: true, prefix: POL_PREFIXES.operating }],
    ['operating.podopslifecycle.kusionstack.io/', { invalid: true, prefix: POL_PREFIXES.operating }],
    ['app', undefined],
    ['podopslifecycle.kusionstack.io/service-available', undefined],
    ['pre-checked-x.podopslifecycle.kusionstack.io/a', undefined],
  ])('parses %s as %j', (key, expected) => {
    expect(parsePolKey(key)).toEqual(expected);
  });

  it('round-trips any id (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.values(POL_PREFIXES)), fc.stringMatching(/^[A-Za-z0-9][-A-Za-z0-9_.]{0,20}$/), (prefix, id) => {
        expect(parsePolKey(polKey(prefix, id))).toEqual({ prefix, id });
      }),
    );
  });

  it('derives the id set from operating/operate/operated keys only', () => {
    expect(POL_ID_SOURCE_PREFIXES).toHaveLength(3);
    expect(
      lifecycleIds({
        'operating.podopslifecycle.kusionstack.io/b': '1',
        'operated.podopslifecycle.kusionstack.io/a': '1',
        'operate.podopslifecycle.kusionstack.io/b': '1',
        'pre-check.podopslifecycle.kusionstack.io/c': '1',
        'operating.podopslifecycle.kusionstack.io': '1',
        app: 'x',
      }),
    ).toEqual(['a', 'b']);
    expect(lifecycleIds(undefined)).toEqual([]);
  });
});

describe('nanosecond timestamps', () => {
  it('formats a time as Unix nanoseconds', () => {
    expect(nanoTimestamp(new Date('2024-06-04T12:58:05.197Z'))).toBe('1717505885197000000');
    expect(nanoTimestamp(1717505885197871195n)).toBe('1717505885197871195');
  });

  it('parses a label value back, refusing anything else', () => {
    expect(parseNanoTimestamp('1717505885197871195')).toBe(1717505885197871195n);
    expect(nanoTimestampToDate('1717505885197871195')?.toISOString()).toBe('2024-06-04T12:58:05.197Z');
    expect(parseNanoTimestamp('12a')).toBeUndefined();
    expect(parseNanoTimestamp(undefined)).toBeUndefined();
    expect(nanoTimestampToDate('x')).toBeUndefined();
  });

  it('preserves order (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: 0, max: 4e12 }), (a, b) => {
        const na = parseNanoTimestamp(nanoTimestamp(a))!;
        const nb = parseNanoTimestamp(nanoTimestamp(b))!;
        expect(na < nb).toBe(a < b);
      }),
    );
  });

  it('refuses an invalid date', () => {
    expect(() => nanoTimestamp(new Date('nope'))).toThrow(RangeError);
  });
});

describe('PodTransitionRule and kusion keys', () => {
  it('builds and parses the detail annotation', () => {
    expect(ptrDetailAnnotation('rule-a')).toBe('detail.podtransitionrule.kusionstack.io/rule-a');
    expect(parsePtrDetailAnnotation(PTR_DETAIL_ANNOTATION_PREFIX + 'x')).toBe('x');
    expect(parsePtrDetailAnnotation(PTR_DETAIL_ANNOTATION_PREFIX)).toBeUndefined();
    expect(parsePtrDetailAnnotation('other/x')).toBeUndefined();
  });

  it.each([
    [{ 'kusionstack.io/control': 'true' }, true],
    [{ 'kusionstack.io/control': 'True' }, false],
    [{ 'podopslifecycle.kusionstack.io/control': 'true' }, false],
    [undefined, false],
  ])('isKusionControlled(%j) is %s', (labels, expected) => {
    expect(isKusionControlled(labels)).toBe(expected);
  });
});

describe('ptrDetailsOf', () => {
  const key = (ptr: string) => PTR_DETAIL_ANNOTATION_PREFIX + ptr;
  it.each<[string, Record<string, string>, unknown[]]>([
    ['no annotations', {}, []],
    ['other annotations only', { 'a/b': '{}' }, []],
    [
      'a PreCheck rejection',
      { [key('approval')]: JSON.stringify({ stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'needs-approval', reason: 'label missing' }] }) },
      [{ transitionRule: 'approval', readable: true, stage: 'PreCheck', passed: false, rejections: [{ ruleName: 'needs-approval', reason: 'label missing' }] }],
    ],
    ['a pass', { [key('p')]: JSON.stringify({ stage: 'PostCheck', passed: true }) }, [{ transitionRule: 'p', readable: true, stage: 'PostCheck', passed: true, rejections: [] }]],
    ['not JSON', { [key('p')]: '{' }, [{ transitionRule: 'p', readable: false }]],
    ['JSON null', { [key('p')]: 'null' }, [{ transitionRule: 'p', readable: false }]],
    ['a JSON array', { [key('p')]: '[]' }, [{ transitionRule: 'p', readable: false }]],
    [
      'fields of the wrong type read as absent',
      { [key('p')]: JSON.stringify({ stage: 3, passed: 'no', rejectInfo: [null, { ruleName: 1, reason: 'r' }] }) },
      [{ transitionRule: 'p', readable: true, stage: undefined, passed: undefined, rejections: [{ ruleName: undefined, reason: undefined }, { ruleName: undefined, reason: 'r' }] }],
    ],
  ])('%s', (_, annotations, expected) => {
    expect(ptrDetailsOf(annotations)).toEqual(expected);
  });
});
