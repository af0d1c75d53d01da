import { describe, expect, it } from 'vitest';
import { defaultCloneSet, validateCloneSet, validateCloneSetDeletion, type CloneSet, type FieldError } from '../../src/index.ts';
import { formatFieldError } from '../../src/field-errors.ts';
import { type CloneSetValidationOptions } from '../../src/cloneset/validation.ts';
import { CLONESET_FIXTURES, loadCloneSet, loadSpecFragments, withFragment } from '../fixtures.ts';

const valid = (): CloneSet => defaultCloneSet(loadCloneSet());
const fields = (errs: FieldError[]): string[] => errs.map((e) => e.field);
const texts = (errs: FieldError[]): string => errs.map(formatFieldError).join('\n');

describe('seed samples', () => {
  it.each(CLONESET_FIXTURES)('%s validates after defaulting', (name) => {
    expect(texts(validateCloneSet(defaultCloneSet(loadCloneSet(name))))).toBe('');
  });

  it.each(loadSpecFragments().map((f) => [f.title, f.spec] as const))('fragment %s validates merged into the sample', (_title, spec) => {
    expect(texts(validateCloneSet(defaultCloneSet(withFragment(loadCloneSet(), spec))))).toBe('');
  });
});

type Case = [rule: string, mutate: (cs: CloneSet) => void, field?: string, message?: RegExp];

// One accepted and one rejected case per rule of OpenKruise's CloneSet validation (plus the suite's
// own: OnDelete and progressDeadlineSeconds accepted in v1alpha1).
const accepted: Case[] = [
  ['metadata name is a DNS subdomain', (cs) => (cs.metadata!.name = 'a.b-c')],
  ['replicas 0', (cs) => (cs.spec.replicas = 0)],
  ['selector with expressions', (cs) => (cs.spec.selector = { matchExpressions: [{ key: 'app', operator: 'In', values: ['sample'] }] })],
  ['selector matching template labels', (cs) => (cs.spec.template.metadata!.labels = { app: 'sample', extra: 'x' })],
  ['name of 52 characters (its revision label fits in 63)', (cs) => (cs.metadata!.name = 'a'.repeat(52))],
  ['tolerations as users write them', (cs) => (cs.spec.template.spec!.tolerations = [
    { operator: 'Exists' },
    { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 },
  ])],
  ['nodeSelector with qualified keys', (cs) => (cs.spec.template.spec!.nodeSelector = { 'kubernetes.io/os': 'linux', type: 'fast' })],
  ['volumes with one source each', (cs) => (cs.spec.template.spec!.volumes = [{ name: 'a', emptyDir: {} }, { name: 'b', configMap: { name: 'c' } }])],
  ['hooks with qualified finalizers and labels', (cs) => (cs.spec.lifecycle = { preDelete: { finalizersHandler: ['example.com/hold'], labelsHandler: { 'example.com/ready': 'true' } } })],
  ['selector excluding a lifecycle state nobody reaches', (cs) => (cs.spec.selector = { matchLabels: { app: 'sample' }, matchExpressions: [{ key: 'lifecycle.apps.kruise.io/state', operator: 'NotIn', values: ['Bogus'] }] })],
  ['template with VCT-backed mount', (cs) => {
    cs.spec.volumeClaimTemplates = [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }];
    cs.spec.template.spec!.containers[0]!.volumeMounts = [{ name: 'data', mountPath: '/d' }];
  }],
  ['restartPolicy Always', (cs) => (cs.spec.template.spec!.restartPolicy = 'Always')],
  ['resources in every quantity form, requests within limits', (cs) => {
    cs.spec.template.spec!.containers[0]!.resources = { requests: { cpu: '500m', memory: '1024Mi', 'ephemeral-storage': '1e9' }, limits: { cpu: '1', memory: '1Gi', 'ephemeral-storage': '1G' } };
  }],
  ['probes with one handler each, ports by number or name', (cs) => {
    const c = cs.spec.template.spec!.containers[0]!;
    c.ports = [{ name: 'http', containerPort: 80 }];
    c.readinessProbe = { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 5, successThreshold: 3 };
    c.livenessProbe = { tcpSocket: { port: 80 }, failureThreshold: 3, successThreshold: 1 };
    c.startupProbe = { exec: { command: ['true'] } };
  }],
  ['relaxed env names and named ports', (cs) => {
    const c = cs.spec.template.spec!.containers[0]!;
    c.env = [{ name: 'my.var-1', value: 'x' }, { name: '1ST', value: 'y' }];
    c.ports = [{ name: 'http', containerPort: 80 }, { name: 'metrics-9', containerPort: 9090 }];
  }],
  ['no activeDeadlineSeconds', () => {}],
  ['podsToDelete unique', (cs) => (cs.spec.scaleStrategy = { podsToDelete: ['a', 'b'] })],
  ['type InPlaceIfPossible', (cs) => (cs.spec.updateStrategy!.type = 'InPlaceIfPossible')],
  ['type OnDelete', (cs) => (cs.spec.updateStrategy!.type = 'OnDelete')],
  ['partition decimal percent', (cs) => (cs.spec.updateStrategy!.partition = '99.5%')],
  ['partition above replicas', (cs) => (cs.spec.updateStrategy!.partition = 100)],
  ['weightPriority alone', (cs) => (cs.spec.updateStrategy!.priorityStrategy = { weightPriority: [{ weight: 100, matchSelector: { matchLabels: { a: 'b' } } }] })],
  ['orderPriority alone', (cs) => (cs.spec.updateStrategy!.priorityStrategy = { orderPriority: [{ orderedKey: 'k' }] })],
  ['scatter terms distinct', (cs) => (cs.spec.updateStrategy!.scatterStrategy = [{ key: 'a', value: '1' }, { key: 'a', value: '2' }])],
  ['maxUnavailable integer percent', (cs) => (cs.spec.updateStrategy!.maxUnavailable = '25%')],
  ['maxSurge int', (cs) => (cs.spec.updateStrategy!.maxSurge = 2)],
  ['maxSurge 0 with InPlaceOnly', (cs) => Object.assign(cs.spec.updateStrategy!, { type: 'InPlaceOnly', maxSurge: '0%' })],
  ['maxUnavailable 0 with maxSurge 1', (cs) => Object.assign(cs.spec.updateStrategy!, { maxUnavailable: 0, maxSurge: 1 })],
  ['both zero with replicas 0', (cs) => { cs.spec.replicas = 0; Object.assign(cs.spec.updateStrategy!, { maxUnavailable: 0, maxSurge: 0 }); }],
  ['progressDeadlineSeconds above minReadySeconds', (cs) => { cs.spec.minReadySeconds = 10; cs.spec.progressDeadlineSeconds = 11; }],
  ['progressDeadlineSeconds MaxInt32', (cs) => { cs.spec.minReadySeconds = 10; cs.spec.progressDeadlineSeconds = 2147483647; }],
  ['minReadySeconds 0', (cs) => (cs.spec.minReadySeconds = 0)],
  ['revisionHistoryLimit 0', (cs) => (cs.spec.revisionHistoryLimit = 0)],
  ['scaleStrategy.maxUnavailable percent', (cs) => (cs.spec.scaleStrategy = { maxUnavailable: '10%' })],
  ['gracePeriodSeconds 0', (cs) => (cs.spec.updateStrategy!.inPlaceUpdateStrategy = { gracePeriodSeconds: 0 })],
];

const rejected: Case[] = [
  ['metadata name not a DNS subdomain', (cs) => (cs.metadata!.name = 'Bad_Name'), 'metadata.name'],
  ['replicas < 0', (cs) => (cs.spec.replicas = -1), 'spec.replicas', /Invalid value: -1/],
  ['selector nil', (cs) => delete (cs.spec as Partial<CloneSet['spec']>).selector, 'spec.selector', /Required value/],
  ['selector invalid', (cs) => (cs.spec.selector = { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] }), 'spec.selector.matchExpressions[0].values'],
  ['selector empty', (cs) => (cs.spec.selector = {}), 'spec.selector', /empty selector is invalid for cloneset/],
  ['selector not matching template', (cs) => (cs.spec.selector = { matchLabels: { app: 'other' } }), 'spec.template.metadata.labels', /`selector` does not match template `labels`/],
  ['selector excluding pod-template-hash (a loop of releases)', (cs) => (cs.spec.selector = { matchLabels: { app: 'sample' }, matchExpressions: [{ key: 'pod-template-hash', operator: 'DoesNotExist' }] }), 'spec.selector', /constrains "pod-template-hash", which the controller sets on each pod/],
  ['selector pinning a revision', (cs) => {
    cs.spec.selector = { matchLabels: { app: 'sample', 'controller-revision-hash': 'sample-abc' } };
    cs.spec.template.metadata!.labels = { app: 'sample', 'controller-revision-hash': 'sample-abc' };
  }, 'spec.selector', /constrains "controller-revision-hash"/],
  ['selector on the instance id', (cs) => {
    cs.spec.selector = { matchLabels: { app: 'sample' }, matchExpressions: [{ key: 'apps.kruise.io/cloneset-instance-id', operator: 'In', values: ['b7x2k'] }] };
    cs.spec.template.metadata!.labels = { app: 'sample', 'apps.kruise.io/cloneset-instance-id': 'b7x2k' };
  }, 'spec.selector', /"apps.kruise.io\/cloneset-instance-id"/],
  ['selector on one lifecycle state', (cs) => {
    cs.spec.selector = { matchLabels: { app: 'sample', 'lifecycle.apps.kruise.io/state': 'Normal' } };
    cs.spec.template.metadata!.labels = { app: 'sample', 'lifecycle.apps.kruise.io/state': 'Normal' };
  }, 'spec.selector', /"lifecycle.apps.kruise.io\/state"/],
  ['name of 53 characters (controller-revision-hash would exceed 63)', (cs) => (cs.metadata!.name = 'a'.repeat(53)), 'metadata.name', /must be no more than 52 characters/],
  ['claim template without a name', (cs) => (cs.spec.volumeClaimTemplates = [{ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }]), 'spec.volumeClaimTemplates[0].metadata.name', /Required value/],
  ['claim template without a storage request', (cs) => (cs.spec.volumeClaimTemplates = [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }]), 'spec.volumeClaimTemplates[0].spec.resources.requests[storage]', /Required value/],
  ['claim template without access modes', (cs) => (cs.spec.volumeClaimTemplates = [{ metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } }]), 'spec.volumeClaimTemplates[0].spec.accessModes', /at least 1 access mode is required/],
  ['volume without a source', (cs) => (cs.spec.template.spec!.volumes = [{ name: 'v' }]), 'spec.template.spec.volumes[0]', /must specify a volume type/],
  ['volume with two sources', (cs) => (cs.spec.template.spec!.volumes = [{ name: 'v', emptyDir: {}, hostPath: { path: '/x' } }]), 'spec.template.spec.volumes[0].hostPath', /may not specify more than 1 volume type/],
  ['toleration Exists with a value', (cs) => (cs.spec.template.spec!.tolerations = [{ key: 'k', operator: 'Exists', value: 'v' }]), 'spec.template.spec.tolerations[0].value', /value must be empty when `operator` is 'Exists'/],
  ['toleration without key, operator Equal', (cs) => (cs.spec.template.spec!.tolerations = [{ value: 'x' }]), 'spec.template.spec.tolerations[0].operator', /operator must be Exists when `key` is empty/],
  ['tolerationSeconds without NoExecute', (cs) => (cs.spec.template.spec!.tolerations = [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }]), 'spec.template.spec.tolerations[0].effect', /must be 'NoExecute'/],
  ['nodeSelector with an invalid key', (cs) => (cs.spec.template.spec!.nodeSelector = { 'bad key!': 'x' }), 'spec.template.spec.nodeSelector', /name part must consist of alphanumeric characters/],
  ['preDelete finalizer that is not a finalizer name', (cs) => (cs.spec.lifecycle = { preDelete: { finalizersHandler: ['not a/valid/finalizer'] } }), 'spec.lifecycle.preDelete.finalizersHandler[0]', /qualified name/],
  ['preDelete finalizer without a domain', (cs) => (cs.spec.lifecycle = { preDelete: { finalizersHandler: ['hold'] } }), 'spec.lifecycle.preDelete.finalizersHandler[0]', /neither a standard finalizer name nor is it fully qualified/],
  ['inPlaceUpdate label that is not a label', (cs) => (cs.spec.lifecycle = { inPlaceUpdate: { labelsHandler: { 'example.com/ready': 'no way' } } }), 'spec.lifecycle.inPlaceUpdate.labelsHandler[example.com/ready]', /a valid label must be/],
  ['template without containers', (cs) => (cs.spec.template.spec!.containers = []), 'spec.template.spec.containers', /Required value/],
  ['template container without image', (cs) => delete cs.spec.template.spec!.containers[0]!.image, 'spec.template.spec.containers[0].image'],
  ['template mount of unknown volume', (cs) => (cs.spec.template.spec!.containers[0]!.volumeMounts = [{ name: 'nope', mountPath: '/d' }]), 'spec.template.spec.containers[0].volumeMounts[0].name'],
  ['template duplicate container names', (cs) => cs.spec.template.spec!.containers.push({ name: 'nginx', image: 'x' }), 'spec.template.spec.containers[1].name', /Duplicate value/],
  ['quantity that does not parse', (cs) => (cs.spec.template.spec!.containers[0]!.resources = { limits: { memory: '1Gb' } }), 'spec.template.spec.containers[0].resources.limits[memory]', /Invalid value: "1Gb": quantities must match the regular expression/],
  ['negative quantity', (cs) => (cs.spec.template.spec!.containers[0]!.resources = { requests: { cpu: '-1' } }), 'spec.template.spec.containers[0].resources.requests[cpu]', /must be greater than or equal to 0/],
  ['request above its limit', (cs) => (cs.spec.template.spec!.containers[0]!.resources = { requests: { cpu: '1500m' }, limits: { cpu: '1' } }), 'spec.template.spec.containers[0].resources.requests[cpu]', /Invalid value: "1500m": must be less than or equal to cpu limit of 1/],
  ['probe without a handler', (cs) => (cs.spec.template.spec!.containers[0]!.readinessProbe = { periodSeconds: 5 }), 'spec.template.spec.containers[0].readinessProbe', /must specify a handler type/],
  ['probe with two handlers', (cs) => (cs.spec.template.spec!.containers[0]!.livenessProbe = { exec: { command: ['true'] }, tcpSocket: { port: 80 } }), 'spec.template.spec.containers[0].livenessProbe.tcpSocket', /may not specify more than 1 handler type/],
  ['probe port out of range', (cs) => (cs.spec.template.spec!.containers[0]!.readinessProbe = { httpGet: { path: '/', port: 70000 } }), 'spec.template.spec.containers[0].readinessProbe.httpGet.port', /between 1 and 65535/],
  ['probe negative period', (cs) => (cs.spec.template.spec!.containers[0]!.readinessProbe = { tcpSocket: { port: 80 }, periodSeconds: -1 }), 'spec.template.spec.containers[0].readinessProbe.periodSeconds', /greater than or equal to 0/],
  ['liveness successThreshold not 1', (cs) => (cs.spec.template.spec!.containers[0]!.livenessProbe = { tcpSocket: { port: 80 }, successThreshold: 2 }), 'spec.template.spec.containers[0].livenessProbe.successThreshold', /must be 1/],
  ['env name with =', (cs) => (cs.spec.template.spec!.containers[0]!.env = [{ name: 'A=B', value: '1' }]), 'spec.template.spec.containers[0].env[0].name', /printable ASCII characters other than '='/],
  ['env without a name', (cs) => (cs.spec.template.spec!.containers[0]!.env = [{ name: '', value: '1' }]), 'spec.template.spec.containers[0].env[0].name', /Required value/],
  ['port name not an IANA service name', (cs) => (cs.spec.template.spec!.containers[0]!.ports = [{ name: 'HTTP_PORT', containerPort: 80 }]), 'spec.template.spec.containers[0].ports[0].name', /alpha-numeric characters/],
  ['duplicate port names', (cs) => (cs.spec.template.spec!.containers[0]!.ports = [{ name: 'http', containerPort: 80 }, { name: 'http', containerPort: 81 }]), 'spec.template.spec.containers[0].ports[1].name', /Duplicate value: "http"/],
  ['restartPolicy not Always', (cs) => (cs.spec.template.spec!.restartPolicy = 'Never'), 'spec.template.spec.restartPolicy', /Unsupported value: "Never"/],
  ['activeDeadlineSeconds set', (cs) => (cs.spec.template.spec!.activeDeadlineSeconds = 5), 'spec.template.spec.activeDeadlineSeconds', /activeDeadlineSeconds in cloneset is not Supported/],
  ['podsToDelete duplicates', (cs) => (cs.spec.scaleStrategy = { podsToDelete: ['a', 'a'] }), 'spec.scaleStrategy.podsToDelete[1]', /Duplicate value: "a"/],
  ['type unknown', (cs) => (cs.spec.updateStrategy!.type = 'Rolling' as 'ReCreate'), 'spec.updateStrategy.type', /Unsupported value: "Rolling"/],
  ['partition not int or percent', (cs) => (cs.spec.updateStrategy!.partition = 'abc'), 'spec.updateStrategy.partition', /Invalid value: "abc"/],
  ['partition negative', (cs) => (cs.spec.updateStrategy!.partition = -1), 'spec.updateStrategy.partition', /negative/],
  ['weight and order together', (cs) => (cs.spec.updateStrategy!.priorityStrategy = { weightPriority: [{ weight: 1, matchSelector: { matchLabels: { a: 'b' } } }], orderPriority: [{ orderedKey: 'k' }] }), 'spec.updateStrategy.priorityStrategy'],
  ['weight out of range', (cs) => (cs.spec.updateStrategy!.priorityStrategy = { weightPriority: [{ weight: 101, matchSelector: { matchLabels: { a: 'b' } } }] }), 'spec.updateStrategy.priorityStrategy.weightPriority[0].weight'],
  ['weight matchSelector empty', (cs) => (cs.spec.updateStrategy!.priorityStrategy = { weightPriority: [{ weight: 1, matchSelector: {} }] }), 'spec.updateStrategy.priorityStrategy.weightPriority[0].matchSelector'],
  ['weight matchSelector invalid', (cs) => (cs.spec.updateStrategy!.priorityStrategy = { weightPriority: [{ weight: 1, matchSelector: { matchLabels: { 'a b': 'c' } } }] }), 'spec.updateStrategy.priorityStrategy.weightPriority[0].matchSelector.matchLabels'],
  ['orderedKey empty', (cs) => (cs.spec.updateStrategy!.priorityStrategy = { orderPriority: [{ orderedKey: '' }] }), 'spec.updateStrategy.priorityStrategy.orderPriority[0].orderedKey'],
  ['scatter empty key', (cs) => (cs.spec.updateStrategy!.scatterStrategy = [{ key: '', value: 'x' }]), 'spec.updateStrategy.scatterStrategy[0].key'],
  ['scatter duplicate pair', (cs) => (cs.spec.updateStrategy!.scatterStrategy = [{ key: 'a', value: '1' }, { key: 'a', value: '1' }]), 'spec.updateStrategy.scatterStrategy[1]', /Duplicate value/],
  ['maxUnavailable decimal percent', (cs) => (cs.spec.updateStrategy!.maxUnavailable = '12.5%'), 'spec.updateStrategy.maxUnavailable'],
  ['maxUnavailable not int or percent', (cs) => (cs.spec.updateStrategy!.maxUnavailable = 'x'), 'spec.updateStrategy.maxUnavailable'],
  // A number in a string is neither an int nor a percentage (OpenKruise v1.9 refuses it too, kruise #2111).
  ['maxUnavailable "5" (a string)', (cs) => (cs.spec.updateStrategy!.maxUnavailable = '5'), 'spec.updateStrategy.maxUnavailable', /Invalid value: "5"/],
  ['maxSurge "5" (a string)', (cs) => (cs.spec.updateStrategy!.maxSurge = '5'), 'spec.updateStrategy.maxSurge', /Invalid value: "5"/],
  ['partition "5" (a string)', (cs) => (cs.spec.updateStrategy!.partition = '5'), 'spec.updateStrategy.partition', /Invalid value: "5"/],
  ['maxSurge negative', (cs) => (cs.spec.updateStrategy!.maxSurge = -1), 'spec.updateStrategy.maxSurge'],
  ['maxSurge with InPlaceOnly', (cs) => Object.assign(cs.spec.updateStrategy!, { type: 'InPlaceOnly', maxSurge: 1 }), 'spec.updateStrategy.maxSurge', /InPlaceOnly/],
  ['both zero', (cs) => Object.assign(cs.spec.updateStrategy!, { maxUnavailable: 0, maxSurge: '0%' }), 'spec.updateStrategy.maxUnavailable', /should not both be less than 1/],
  ['progressDeadlineSeconds not above minReadySeconds', (cs) => { cs.spec.minReadySeconds = 10; cs.spec.progressDeadlineSeconds = 10; }, 'spec.progressDeadlineSeconds'],
  ['progressDeadlineSeconds negative', (cs) => (cs.spec.progressDeadlineSeconds = -1), 'spec.progressDeadlineSeconds'],
  ['minReadySeconds negative', (cs) => (cs.spec.minReadySeconds = -1), 'spec.minReadySeconds'],
  ['revisionHistoryLimit negative', (cs) => (cs.spec.revisionHistoryLimit = -1), 'spec.revisionHistoryLimit'],
  ['scaleStrategy.maxUnavailable invalid', (cs) => (cs.spec.scaleStrategy = { maxUnavailable: 'lots' }), 'spec.scaleStrategy.maxUnavailable'],
  ['gracePeriodSeconds negative', (cs) => (cs.spec.updateStrategy!.inPlaceUpdateStrategy = { gracePeriodSeconds: -1 }), 'spec.updateStrategy.inPlaceUpdateStrategy.gracePeriodSeconds'],
];

describe('validateCloneSet on CREATE', () => {
  it.each(accepted)('accepts: %s', (_rule, mutate) => {
    const cs = valid();
    mutate(cs);
    expect(texts(validateCloneSet(cs))).toBe('');
  });

  it.each(rejected)('rejects: %s', (_rule, mutate, field, message) => {
    const cs = valid();
    mutate(cs);
    const errs = validateCloneSet(cs);
    expect(fields(errs)).toContain(field);
    if (message) expect(texts(errs)).toMatch(message);
  });

  it('reports a missing spec', () => {
    expect(validateCloneSet({ metadata: { name: 'x' } } as unknown as CloneSet)).toEqual([{ field: 'spec', type: 'Required', message: '' }]);
  });
});

describe('validateCloneSet podsToDelete lookups (newly added names only)', () => {
  const uid = 'cs-uid';
  const pods: Record<string, { deletionTimestamp?: string; ownerReferences?: { uid: string; controller?: boolean }[] }> = {
    mine: { ownerReferences: [{ uid, controller: true }] },
    terminating: { deletionTimestamp: '2026-01-01T00:00:00Z', ownerReferences: [{ uid, controller: true }] },
    foreign: { ownerReferences: [{ uid: 'other', controller: true }] },
    notController: { ownerReferences: [{ uid }] },
  };
  const options: CloneSetValidationOptions = { getPod: (name) => pods[name] };
  const withPods = (names: string[]): CloneSet => {
    const cs = valid();
    cs.metadata!.uid = uid;
    cs.spec.scaleStrategy = { podsToDelete: names };
    return cs;
  };

  it('accepts an active pod this CloneSet controls', () => {
    expect(validateCloneSet(withPods(['mine']), undefined, options)).toEqual([]);
  });

  it.each([
    ['missing', /not found/],
    ['terminating', /already terminating/],
    ['foreign', /not owned/],
    ['notController', /not owned/],
  ])('rejects a newly added %s pod', (name, message) => {
    const errs = validateCloneSet(withPods([name]), undefined, options);
    expect(fields(errs)).toEqual(['spec.scaleStrategy.podsToDelete[0]']);
    expect(texts(errs)).toMatch(message);
  });

  it('does not look up names already in the old object', () => {
    const old = withPods(['missing']);
    expect(validateCloneSet(withPods(['missing']), old, options)).toEqual([]);
  });
});

describe('validateCloneSet on UPDATE', () => {
  it('accepts changes to the mutable fields', () => {
    const old = valid();
    const cs = valid();
    cs.spec.replicas = 7;
    cs.spec.minReadySeconds = 3;
    cs.spec.progressDeadlineSeconds = 600;
    cs.spec.updateStrategy!.paused = true;
    cs.spec.lifecycle = { preDelete: { finalizersHandler: ['x/y'] } };
    cs.spec.template.spec!.containers[0]!.image = 'nginx:mainline';
    expect(validateCloneSet(cs, old)).toEqual([]);
  });

  it('rejects a selector change', () => {
    const old = valid();
    const cs = valid();
    cs.spec.selector = { matchLabels: { app: 'sample', extra: 'x' } };
    cs.spec.template.metadata!.labels = { app: 'sample', extra: 'x' };
    const errs = validateCloneSet(cs, old);
    expect(errs).toHaveLength(1);
    expect(formatFieldError(errs[0]!)).toMatch(/^spec: Forbidden: updates to cloneset spec for fields other than 'replicas'/);
  });

  it('checks the selector against the controller\'s labels on CREATE only (it is immutable: an existing CloneSet stays editable)', () => {
    const old = valid();
    old.spec.selector = { matchLabels: { app: 'sample' }, matchExpressions: [{ key: 'pod-template-hash', operator: 'DoesNotExist' }] };
    const cs = structuredClone(old);
    cs.spec.replicas = 0;
    expect(validateCloneSet(cs, old)).toEqual([]);
    expect(validateCloneSet(cs).map((e) => e.field)).toEqual(['spec.selector']);
  });

  it('lets a long name through under CloneSetShortHash (pods carry only the hash) and on UPDATE (names are immutable)', () => {
    const cs = valid();
    cs.metadata!.name = 'a'.repeat(60);
    expect(validateCloneSet(cs, undefined, { cloneSetShortHash: true })).toEqual([]);
    expect(validateCloneSet(cs, structuredClone(cs))).toEqual([]);
  });

  it('accepts an image-only template change under InPlaceOnly, metadata changes included', () => {
    const old = valid();
    old.spec.updateStrategy!.type = 'InPlaceOnly';
    const cs = structuredClone(old);
    cs.spec.template.spec!.containers[0]!.image = 'nginx:mainline';
    cs.spec.template.metadata!.annotations = { a: 'b' };
    expect(validateCloneSet(cs, old)).toEqual([]);
  });

  it.each<[string, (cs: CloneSet) => void]>([
    ['an env change', (cs) => (cs.spec.template.spec!.containers[0]!.env = [{ name: 'A', value: '1' }])],
    ['an added container', (cs) => cs.spec.template.spec!.containers.push({ name: 'side', image: 'busybox' })],
    ['a removed image', (cs) => delete cs.spec.template.spec!.containers[0]!.image],
  ])('rejects %s under InPlaceOnly', (_name, mutate) => {
    const old = valid();
    old.spec.updateStrategy!.type = 'InPlaceOnly';
    const cs = structuredClone(old);
    mutate(cs);
    expect(fields(validateCloneSet(cs, old))).toContain('spec.template.spec');
  });
});

describe('validateCloneSetDeletion', () => {
  const labelled = (policy: string, replicas: number): CloneSet => {
    const cs = valid();
    cs.metadata!.labels = { 'policy.kruise.io/delete-protection': policy };
    cs.spec.replicas = replicas;
    return cs;
  };

  it.each([
    ['Always', 0, true, 1],
    ['Cascading', 2, true, 1],
    ['Cascading', 0, true, 0],
    ['Always', 3, false, 0],
    ['Other', 3, true, 0],
  ])('label %s with replicas %i, gate %s: %i errors', (policy, replicas, gate, count) => {
    expect(validateCloneSetDeletion(labelled(policy, replicas), { resourcesDeletionProtection: gate })).toHaveLength(count);
  });
});
