// Applies the generated CRDs to the local cluster (a real kube-apiserver) and checks what the
// schemas alone enforce: no webhook is involved, so every refusal here comes from the CRD.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderCrdFiles, type CloneSet, type PodTransitionRule } from '../../src/index.ts';
import { CLONESET_FIXTURES, PTR_FIXTURE, fixturePath, loadCloneSet, loadPodTransitionRule, loadSpecFragments, withFragment } from '../fixtures.ts';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const kubeconfig = process.env.E2E_KUBECONFIG_RESOLVED ?? process.env.E2E_KUBECONFIG ?? path.join(repoRoot, '.cluster/kubeconfig');
const namespace = `api-types-it-${randomBytes(3).toString('hex')}`;

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

function kubectl(args: string[], input?: string): Result {
  const r = spawnSync('kubectl', ['--kubeconfig', kubeconfig, ...args], { input, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function ok(args: string[], input?: string): string {
  const r = kubectl(args, input);
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Server-side dry run of a create: the apiserver runs every schema rule but stores nothing. */
function dryRunCreate(object: unknown): Result {
  return kubectl(['create', '-n', namespace, '--dry-run=server', '-f', '-'], JSON.stringify(object));
}

async function eventually<T>(what: string, fn: () => T, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      return fn();
    } catch (error) {
      last = error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`${what}: ${String(last)}`);
}

const named = (cs: CloneSet, name: string): CloneSet => ({ ...cs, metadata: { ...cs.metadata, name } });

beforeAll(async () => {
  for (const file of renderCrdFiles()) {
    // Apply what is committed, which the unit drift test holds equal to the generator's output.
    ok(['apply', '--server-side', '--force-conflicts', '--field-manager=api-types-it', '-f', path.join(repoRoot, 'crds', file.name)]);
  }
  ok(['wait', '--for=condition=Established', '--timeout=60s', 'crd/clonesets.apps.kruise.io', 'crd/podtransitionrules.apps.kusionstack.io']);
  ok(['create', 'namespace', namespace]);
  // Discovery of a new CRD can lag its Established condition by a moment.
  await eventually('clone short name resolves', () => ok(['get', 'clone', '-n', namespace]));
});

afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

describe('the generated CRDs accept the seed samples unchanged', () => {
  it.each(CLONESET_FIXTURES)('kubectl apply %s', (name) => {
    expect(ok(['apply', '-n', namespace, '-f', fixturePath(name)])).toMatch(/cloneset.apps.kruise.io\/\S+ created/);
  });

  it(`kubectl apply ${PTR_FIXTURE}`, () => {
    expect(ok(['apply', '-n', namespace, '-f', fixturePath(PTR_FIXTURE)])).toMatch(/podtransitionrule.apps.kusionstack.io\/podtransitionrule-sample created/);
    const stored = JSON.parse(ok(['get', 'ptr', 'podtransitionrule-sample', '-n', namespace, '-o', 'json'])) as PodTransitionRule;
    // Nothing pruned: the stored spec is the sample's spec.
    expect(stored.spec).toEqual(loadPodTransitionRule().spec);
  });

  it.each(loadSpecFragments().map((f) => [f.title, f.spec] as const))('accepts seed fragment %s merged into the sample', (_title, spec) => {
    const r = dryRunCreate(named(withFragment(loadCloneSet(), spec), 'fragment'));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('stores the templates without pruning unknown fields', () => {
    const stored = JSON.parse(ok(['get', 'clone', 'sample-data', '-n', namespace, '-o', 'json'])) as CloneSet;
    expect(stored.spec.volumeClaimTemplates).toEqual(loadCloneSet('seed-002-cloneset-sample-data.yaml').spec.volumeClaimTemplates);
    expect(stored.spec.template).toEqual(loadCloneSet('seed-002-cloneset-sample-data.yaml').spec.template);
  });
});

describe('kubectl sees the CRD metadata', () => {
  it('kubectl get clone shows the columns', () => {
    const header = ok(['get', 'clone', '-n', namespace]).split('\n')[0] ?? '';
    expect(header.split(/\s+/)).toEqual(['NAME', 'DESIRED', 'UPDATED', 'UPDATED_READY', 'UPDATED_AVAILABLE', 'READY', 'TOTAL', 'AGE']);
    const sample = ok(['get', 'clone', 'sample', '-n', namespace, '--no-headers']).split(/\s+/);
    expect(sample.slice(0, 2)).toEqual(['sample', '5']);
  });

  it('kubectl get clone -o wide adds CONTAINERS, IMAGES and SELECTOR', () => {
    const out = ok(['get', 'clone', 'sample', '-n', namespace, '-o', 'wide']);
    expect(out.split('\n')[0]?.split(/\s+/).slice(-3)).toEqual(['CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(out).toMatch(/nginx\s+nginx:alpine/);
  });

  it('kubectl get ptr resolves the short name', () => {
    expect(ok(['get', 'ptr', '-n', namespace, '-o', 'name'])).toContain('podtransitionrule.apps.kusionstack.io/podtransitionrule-sample');
  });

  it.each([
    // kubectl's default is v1alpha1, the only version served, as with released OpenKruise.
    [[], 'cloneset.spec.updateStrategy.partition'],
    [['--api-version=apps.kruise.io/v1alpha1'], 'cloneset.spec.updateStrategy.partition'],
  ])('kubectl explain %j %s answers', async (flags, field) => {
    const out = await eventually('explain', () => ok(['explain', ...flags, field]));
    expect(out).toMatch(/FIELD:\s+partition/);
    expect(out).toMatch(/old revision/);
  });

  it('kubectl scale clone sample --replicas=3 changes .spec.replicas', () => {
    ok(['scale', 'clone', 'sample', '-n', namespace, '--replicas=3']);
    expect(ok(['get', 'clone', 'sample', '-n', namespace, '-o', 'jsonpath={.spec.replicas}'])).toBe('3');
  });

  it('serves the status subresource apart from the main resource', () => {
    const status = { status: { replicas: 3, readyReplicas: 0, availableReplicas: 0, updatedReplicas: 0, updatedReadyReplicas: 0, labelSelector: 'app=sample' } };
    ok(['patch', 'clone', 'sample', '-n', namespace, '--subresource=status', '--type=merge', '-p', JSON.stringify(status)]);
    expect(ok(['get', 'clone', 'sample', '-n', namespace, '-o', 'jsonpath={.status.labelSelector}'])).toBe('app=sample');
    // A write to the main resource does not change status.
    ok(['patch', 'clone', 'sample', '-n', namespace, '--type=merge', '-p', JSON.stringify({ status: { replicas: 99 } })]);
    expect(ok(['get', 'clone', 'sample', '-n', namespace, '-o', 'jsonpath={.status.replicas}'])).toBe('3');
    // The scale subresource reads the selector from status.
    const scale = JSON.parse(ok(['get', '--raw', `/apis/apps.kruise.io/v1alpha1/namespaces/${namespace}/clonesets/sample/scale`])) as { status: { selector: string } };
    expect(scale.status.selector).toBe('app=sample');
  });
});

type Bad = [name: string, object: () => unknown, field: string, message?: RegExp];

const cs = (mutate: (c: CloneSet) => void) => (): CloneSet => {
  const c = named(loadCloneSet(), 'bad');
  mutate(c);
  return c;
};
const ptr = (mutate: (p: PodTransitionRule) => void) => (): PodTransitionRule => {
  const p = loadPodTransitionRule();
  p.metadata = { name: 'bad' };
  mutate(p);
  return p;
};

const refused: Bad[] = [
  ['replicas: -1', cs((c) => (c.spec.replicas = -1)), 'spec.replicas'],
  ['partition: "abc"', cs((c) => (c.spec.updateStrategy = { partition: 'abc' })), 'spec.updateStrategy.partition'],
  ['an unknown updateStrategy.type', cs((c) => (c.spec.updateStrategy = { type: 'Rolling' as 'ReCreate' })), 'spec.updateStrategy.type', /Unsupported value: "Rolling"/],
  ['partition: -1', cs((c) => (c.spec.updateStrategy = { partition: -1 })), 'spec.updateStrategy.partition'],
  ['maxSurge: "1.5%"', cs((c) => (c.spec.updateStrategy = { maxSurge: '1.5%' })), 'spec.updateStrategy.maxSurge'],
  ['maxUnavailable: "x"', cs((c) => (c.spec.updateStrategy = { maxUnavailable: 'x' })), 'spec.updateStrategy.maxUnavailable'],
  ['no selector', cs((c) => delete (c.spec as Partial<CloneSet['spec']>).selector), 'spec.selector', /Required value/],
  ['an empty selector', cs((c) => (c.spec.selector = {})), 'spec.selector', /empty selector is invalid for cloneset/],
  ['a selector that does not match the template', cs((c) => (c.spec.selector = { matchLabels: { app: 'other' } })), 'spec.template.metadata.labels', /does not match template/],
  ['maxSurge with InPlaceOnly', cs((c) => (c.spec.updateStrategy = { type: 'InPlaceOnly', maxSurge: 1 })), 'spec.updateStrategy.maxSurge', /InPlaceOnly/],
  ['maxUnavailable and maxSurge both 0', cs((c) => (c.spec.updateStrategy = { maxUnavailable: 0, maxSurge: '0%' })), 'spec.updateStrategy.maxUnavailable', /both be less than 1/],
  ['restartPolicy Never', cs((c) => (c.spec.template.spec!.restartPolicy = 'Never')), 'spec.template.spec.restartPolicy'],
  ['activeDeadlineSeconds', cs((c) => (c.spec.template.spec!.activeDeadlineSeconds = 5)), 'spec.template.spec.activeDeadlineSeconds', /not Supported/],
  ['weight 101', cs((c) => (c.spec.updateStrategy = { priorityStrategy: { weightPriority: [{ weight: 101, matchSelector: { matchLabels: { a: 'b' } } }] } })), 'spec.updateStrategy.priorityStrategy.weightPriority[0].weight'],
  ['weight and order priority together', cs((c) => (c.spec.updateStrategy = { priorityStrategy: { weightPriority: [{ weight: 1, matchSelector: { matchLabels: { a: 'b' } } }], orderPriority: [{ orderedKey: 'k' }] } })), 'spec.updateStrategy.priorityStrategy'],
  ['a duplicate scatter term', cs((c) => (c.spec.updateStrategy = { scatterStrategy: [{ key: 'a', value: '1' }, { key: 'a', value: '1' }] })), 'spec.updateStrategy.scatterStrategy[1]', /Duplicate value/],
  ['duplicate podsToDelete', cs((c) => (c.spec.scaleStrategy = { podsToDelete: ['a', 'a'] })), 'spec.scaleStrategy.podsToDelete[1]', /Duplicate value/],
  ['progressDeadlineSeconds not above minReadySeconds', cs((c) => Object.assign(c.spec, { minReadySeconds: 10, progressDeadlineSeconds: 5 })), 'spec.progressDeadlineSeconds'],
  ['PTR without selector', ptr((p) => delete (p.spec as Partial<PodTransitionRule['spec']>).selector), 'spec.selector', /Required value/],
  ['PTR rule without name', ptr((p) => delete (p.spec.rules![0] as { name?: string }).name), 'spec.rules[0].name', /Required value/],
  ['PTR maxUnavailableValue 0', ptr((p) => (p.spec.rules![0]!.availablePolicy = { maxUnavailableValue: 0 })), 'spec.rules[0].availablePolicy.maxUnavailableValue'],
  ['PTR maxUnavailableValue "0%"', ptr((p) => (p.spec.rules![0]!.availablePolicy = { maxUnavailableValue: '0%' })), 'spec.rules[0].availablePolicy.maxUnavailableValue'],
  ['PTR availablePolicy without values', ptr((p) => (p.spec.rules![0]!.availablePolicy = {})), 'spec.rules[0].availablePolicy', /maxUnavailableValue or minAvailableValue/],
  ['PTR labelCheck without requires', ptr((p) => (p.spec.rules![1]!.labelCheck = {} as never)), 'spec.rules[1].labelCheck.requires', /Required value/],
  ['PTR webhook URL with another scheme', ptr((p) => (p.spec.rules![2]!.webhook!.clientConfig.url = 'ftp://1.1.1.1/x')), 'spec.rules[2].webhook.clientConfig.url'],
  ['PTR caBundle not base64', ptr((p) => (p.spec.rules![2]!.webhook!.clientConfig.caBundle = 'not base64!')), 'spec.rules[2].webhook.clientConfig.caBundle'],
  ['PTR unknown failurePolicy', ptr((p) => (p.spec.rules![2]!.webhook!.failurePolicy = 'Maybe' as 'Fail')), 'spec.rules[2].webhook.failurePolicy', /Unsupported value/],
];

describe('the apiserver refuses bad objects, naming the field', () => {
  it.each(refused)('refuses %s', (_name, object, field, message) => {
    const r = dryRunCreate(object());
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/is invalid/);
    expect(r.stderr).toContain(field);
    if (message) expect(r.stderr).toMatch(message);
  });

  it('refuses a selector change on update (CEL transition rule)', () => {
    const r = kubectl(['patch', 'clone', 'sample', '-n', namespace, '--type=merge', '-p', JSON.stringify({ spec: { selector: { matchLabels: { app: 'sample', x: 'y' } }, template: { metadata: { labels: { app: 'sample', x: 'y' } } } } })]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('spec.selector');
    expect(r.stderr).toMatch(/immutable/);
  });

  it('accepts the boundary values next to the refused ones', () => {
    for (const object of [
      cs((c) => (c.spec.replicas = 0))(),
      cs((c) => (c.spec.updateStrategy = { partition: '99.5%', maxSurge: '10%', maxUnavailable: 0, type: 'OnDelete' }))(),
      cs((c) => (c.spec.updateStrategy = { type: 'InPlaceOnly', maxSurge: 0 }))(),
      cs((c) => Object.assign(c.spec, { minReadySeconds: 10, progressDeadlineSeconds: 2147483647 }))(),
      ptr((p) => (p.spec.rules![0]!.availablePolicy = { minAvailableValue: 0 }))(),
    ]) {
      const r = dryRunCreate(object);
      expect(r.stderr).toBe('');
    }
  });
});
