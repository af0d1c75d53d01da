import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLONESET_PRINTER_COLUMNS, cloneSetCrd, podTransitionRuleCrd, renderCrdFiles, webhookConversion, type CustomResourceDefinition, type SchemaNode } from '../../src/index.ts';

const crdDir = fileURLToPath(new URL('../../../../crds/', import.meta.url));

describe('generated CRDs', () => {
  it.each(renderCrdFiles().map((f) => [f.name, f.text] as const))('crds/%s is committed and up to date (run `npm run gen`)', (name, text) => {
    const committed = readFileSync(crdDir + name, 'utf8');
    expect(committed).toBe(text);
  });

  it('renders byte-identically twice', () => {
    expect(renderCrdFiles()).toEqual(renderCrdFiles());
  });

  it('parses back to the CRD objects', () => {
    const [cs, ptr] = renderCrdFiles();
    expect(parse(cs!.text)).toEqual(cloneSetCrd());
    expect(parse(ptr!.text)).toEqual(podTransitionRuleCrd());
  });
});

type Node = SchemaNode;
const FORBIDDEN_KEYWORDS = ['$ref', 'const', 'patternProperties', 'oneOf', 'allOf', 'not', '$schema', '$id', 'definitions'];

// Walks an openAPIV3Schema and returns the structural-schema violations (empty when fine).
function structuralProblems(node: Node, path: string, out: string[] = []): string[] {
  for (const k of FORBIDDEN_KEYWORDS) if (k in node) out.push(`${path}: ${k}`);
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  if (!('type' in node) && !intOrString && !preserve) out.push(`${path}: no type`);
  if ('anyOf' in node && !intOrString) out.push(`${path}: anyOf outside int-or-string`);
  if ('additionalProperties' in node && 'properties' in node) out.push(`${path}: properties with additionalProperties`);
  for (const [name, child] of Object.entries(node.properties ?? {})) structuralProblems(child, `${path}.${name}`, out);
  if (node.items) structuralProblems(node.items, `${path}[]`, out);
  if (typeof node.additionalProperties === 'object') structuralProblems(node.additionalProperties, `${path}{}`, out);
  return out;
}

function openApi(crd: CustomResourceDefinition, version?: string): Node {
  const v = version === undefined ? crd.spec.versions[0] : crd.spec.versions.find((x) => x.name === version);
  return v!.schema.openAPIV3Schema;
}

function at(schema: Node, path: string): Node {
  let node: Node | undefined = schema;
  for (const part of path.split('.')) node = part === '[]' ? node?.items : node?.properties?.[part];
  if (node === undefined) throw new Error(`no schema node at ${path}`);
  return node;
}

describe('CloneSet CRD', () => {
  const crd = cloneSetCrd({ v1beta1: true });
  const schema = openApi(crd);

  it('serves v1alpha1 only by default, as every released OpenKruise does, with no conversion stanza', () => {
    const plain = cloneSetCrd();
    expect(plain.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1alpha1', true, true]]);
    expect(plain.spec.conversion).toBeUndefined();
    expect(cloneSetCrd({ conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://x/convert' } } } }).spec.conversion).toBeUndefined();
  });

  it('is structural', () => {
    expect(structuralProblems(schema, '')).toEqual([]);
  });

  it('has the identity, short name and subresources of the spec', () => {
    expect(crd.metadata.name).toBe('clonesets.apps.kruise.io');
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names).toMatchObject({ kind: 'CloneSet', plural: 'clonesets', singular: 'cloneset', shortNames: ['clone'] });
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([
      ['v1alpha1', true, true],
      ['v1beta1', true, false],
    ]);
    for (const v of crd.spec.versions) {
      expect(v.subresources).toEqual({
        status: {},
        scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' },
      });
    }
  });

  it.each(['v1alpha1', 'v1beta1'])('%s prints the columns of the spec in order, the last three only with -o wide', (version) => {
    const cols = crd.spec.versions.find((v) => v.name === version)!.additionalPrinterColumns ?? [];
    expect(cols.map((c) => c.name)).toEqual([
      'DESIRED', 'UPDATED', 'UPDATED_READY', 'UPDATED_AVAILABLE', 'READY', 'TOTAL', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR',
    ]);
    expect(cols.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(['CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(CLONESET_PRINTER_COLUMNS).toHaveLength(10);
  });

  it('has no conversion stanza of its own; one given with the opt-in is written as given', () => {
    expect(crd.spec.conversion).toBeUndefined();
    const conversion = webhookConversion({ service: { namespace: 'ns', name: 'svc', path: '/convert', port: 443 } });
    expect(cloneSetCrd({ v1beta1: true, conversion }).spec.conversion).toEqual({
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/convert', port: 443 } } },
    });
  });

  it('requires spec.selector and spec.template and keeps templates schemaless', () => {
    expect(schema.required).toEqual(['spec']);
    expect(at(schema, 'spec').required).toEqual(['selector', 'template']);
    expect(at(schema, 'spec.template')['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(at(schema, 'spec.volumeClaimTemplates.[]')['x-kubernetes-preserve-unknown-fields']).toBe(true);
  });

  it.each(['spec.updateStrategy.partition', 'spec.updateStrategy.maxSurge', 'spec.updateStrategy.maxUnavailable', 'spec.scaleStrategy.maxUnavailable'])(
    '%s is int-or-string with a percent pattern and a lower bound',
    (path) => {
      const node = at(schema, path);
      expect(node['x-kubernetes-int-or-string']).toBe(true);
      expect(node.type).toBeUndefined();
      expect(typeof node.pattern).toBe('string');
      expect(node.minimum).toBe(0);
    },
  );

  it('lists every update strategy type, OnDelete included', () => {
    expect(at(schema, 'spec.updateStrategy.type').enum).toEqual(['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly', 'OnDelete']);
  });

  it('makes the selector immutable with a transition rule', () => {
    const rules = at(schema, 'spec.selector')['x-kubernetes-validations'] ?? [];
    expect(rules.map((r) => r.rule)).toContain('self == oldSelf');
  });

  it('always serialises the five status counters', () => {
    expect(at(schema, 'status').required).toEqual(['replicas', 'readyReplicas', 'availableReplicas', 'updatedReplicas', 'updatedReadyReplicas']);
  });

  it('documents the partition for kubectl explain', () => {
    expect(at(schema, 'spec.updateStrategy.partition').description).toMatch(/old revision/);
  });
});

describe('CloneSet CRD, v1beta1', () => {
  const schema = openApi(cloneSetCrd({ v1beta1: true }), 'v1beta1');

  it('is structural', () => {
    expect(structuralProblems(schema, '')).toEqual([]);
  });

  it.each([
    'spec.updateStrategy.rollingUpdate.partition',
    'spec.updateStrategy.rollingUpdate.maxSurge',
    'spec.updateStrategy.rollingUpdate.maxUnavailable',
    'spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy.imagePreDownloadParallelism',
    'spec.scaleStrategy.maxUnavailable',
  ])('%s is int-or-string with a percent pattern and a lower bound', (path) => {
    const node = at(schema, path);
    expect(node['x-kubernetes-int-or-string']).toBe(true);
    expect(typeof node.pattern).toBe('string');
    expect(node.minimum).toBe(0);
  });

  it('has OpenKruise\'s v1beta1 enums', () => {
    expect(at(schema, 'spec.updateStrategy.type').enum).toEqual(['RollingUpdate', 'OnDelete']);
    expect(at(schema, 'spec.updateStrategy.rollingUpdate.podUpdatePolicy').enum).toEqual(['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly']);
  });

  it('turns PVC reuse off unless asked for: scaleStrategy defaults to {} and enablePVCReuse to false', () => {
    expect(at(schema, 'spec.scaleStrategy').default).toEqual({});
    expect(at(schema, 'spec.scaleStrategy.enablePVCReuse').default).toBe(false);
    expect(at(schema, 'spec.scaleStrategy.excludePreparingDelete').type).toBe('boolean');
  });

  it('checks maxSurge against podUpdatePolicy InPlaceOnly under rollingUpdate', () => {
    const rules = at(schema, 'spec')['x-kubernetes-validations'] ?? [];
    const surge = rules.find((r) => r.message === 'can not use maxSurge with strategy type InPlaceOnly');
    expect(surge?.rule).toContain("self.updateStrategy.rollingUpdate.podUpdatePolicy != 'InPlaceOnly'");
    expect(surge?.fieldPath).toBe('.updateStrategy.rollingUpdate.maxSurge');
  });

  it('has the same status as v1alpha1', () => {
    expect(at(schema, 'status')).toEqual(at(openApi(cloneSetCrd(), 'v1alpha1'), 'status'));
  });
});

describe('PodTransitionRule CRD', () => {
  const crd = podTransitionRuleCrd();
  const schema = openApi(crd);

  it('is structural', () => {
    expect(structuralProblems(schema, '')).toEqual([]);
  });

  it('has the identity, short name and status subresource', () => {
    expect(crd.metadata.name).toBe('podtransitionrules.apps.kusionstack.io');
    expect(crd.spec.names).toMatchObject({ kind: 'PodTransitionRule', plural: 'podtransitionrules', shortNames: ['ptr'] });
    expect(crd.spec.versions[0]!.subresources).toEqual({ status: {} });
  });

  it('requires the selector and holds the admission rules it can', () => {
    expect(at(schema, 'spec').required).toEqual(['selector']);
    expect(at(schema, 'spec.rules.[]').required).toEqual(['name']);
    expect(at(schema, 'spec.rules.[].labelCheck').required).toEqual(['requires']);
    expect(at(schema, 'spec.rules.[].webhook.failurePolicy').enum).toEqual(['Ignore', 'Fail']);
    expect(at(schema, 'spec.rules.[].availablePolicy.maxUnavailableValue')['x-kubernetes-int-or-string']).toBe(true);
    expect(at(schema, 'spec.rules.[].availablePolicy')['x-kubernetes-validations']).toHaveLength(1);
  });
});
