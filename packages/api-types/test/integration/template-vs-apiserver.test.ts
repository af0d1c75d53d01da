// Property: any CloneSet our admission accepts yields pods and PVCs a real kube-apiserver accepts
// (server-side dry run). A template the apiserver refuses only at pod creation is the worst case:
// under ReCreate the controller deletes pods whose replacements then fail.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCloneSet, validateCloneSet, type CloneSet } from '../../src/index.ts';
import { formatFieldError } from '../../src/field-errors.ts';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
// The cluster suites' global setup resolves the kubeconfig (E2E_KUBECONFIG, or the local cluster's, which
// depends on CLONESET_SUITE_CLUSTER_NAME); the fallbacks serve a run of this file alone.
const kubeconfig = process.env.E2E_KUBECONFIG_RESOLVED ?? (process.env.E2E_KUBECONFIG || path.join(repoRoot, '.cluster/kubeconfig'));
const namespace = `api-types-dry-${randomBytes(3).toString('hex')}`;
const INSTANCE_ID = 'b7x2k';
const LONGEST_HASH = 'f'.repeat(10);

function kubectl(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('kubectl', ['--kubeconfig', kubeconfig, ...args], { input, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The pod and PVCs the controller would create for instance INSTANCE_ID at the longest hash. */
function objectsFor(cs: CloneSet): unknown[] {
  const name = cs.metadata!.name!;
  const tpl = cs.spec.template;
  const claims = (cs.spec.volumeClaimTemplates ?? []).map((v) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: `${v.metadata!.name}-${name}-${INSTANCE_ID}`, labels: { 'apps.kruise.io/cloneset-instance-id': INSTANCE_ID } },
    spec: v.spec,
  }));
  const hooks = Object.values(cs.spec.lifecycle ?? {});
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${name}-${INSTANCE_ID}`,
      labels: {
        ...(tpl.metadata?.labels ?? {}),
        'controller-revision-hash': `${name}-${LONGEST_HASH}`,
        'pod-template-hash': LONGEST_HASH,
        'apps.kruise.io/cloneset-instance-id': INSTANCE_ID,
        'lifecycle.apps.kruise.io/state': 'PreparingNormal',
        // What a hook's user writes on the pod to hold it.
        ...Object.assign({}, ...hooks.map((h) => h?.labelsHandler ?? {})),
      },
      annotations: tpl.metadata?.annotations ?? {},
      finalizers: hooks.flatMap((h) => h?.finalizersHandler ?? []),
    },
    spec: {
      ...tpl.spec,
      volumes: [
        ...(tpl.spec?.volumes ?? []),
        ...(cs.spec.volumeClaimTemplates ?? []).map((v) => ({ name: v.metadata!.name, persistentVolumeClaim: { claimName: `${v.metadata!.name}-${name}-${INSTANCE_ID}` } })),
      ],
    },
  };
  return [...claims, pod];
}

const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });
/** One of `valid` most of the time, one of `invalid` now and then. */
const mostly = <T>(valid: T[], invalid: T[]): fc.Arbitrary<T> =>
  fc.oneof({ arbitrary: fc.constantFrom(...valid), weight: 12 }, { arbitrary: fc.constantFrom(...invalid), weight: 1 });

// Mostly plausible input with a few mistakes users make: each field mixes valid and invalid values.
const toleration = fc.record(
  {
    key: mostly(['dedicated', 'example.com/gpu', ''], ['bad key']),
    operator: mostly(['Equal', 'Exists'], ['Bogus']),
    value: mostly(['gpu', ''], ['no way']),
    effect: mostly(['NoSchedule', 'NoExecute', 'PreferNoSchedule'], ['Sometimes']),
    tolerationSeconds: fc.nat(600),
  },
  { requiredKeys: [] },
);
const volume = fc.record({
  name: mostly(['cache', 'config'], ['Bad_Name']),
  sources: fc.oneof({ arbitrary: fc.subarray(['emptyDir', 'hostPath', 'configMap'] as const, { minLength: 1, maxLength: 1 }), weight: 8 }, { arbitrary: fc.subarray(['emptyDir', 'hostPath', 'configMap'] as const), weight: 1 }),
});
const claimTemplate = fc.record(
  {
    name: mostly(['data', 'logs'], ['Data']),
    accessModes: mostly([['ReadWriteOnce'], ['ReadWriteMany', 'ReadOnlyMany']], [[], ['Sometimes']]),
    storage: mostly(['1Gi', '10Mi'], ['0', 'lots']),
  },
  { requiredKeys: [] },
);
const caseArb = fc.record({
  name: mostly(['web', 'a'.repeat(52)], ['a'.repeat(53)]),
  tolerations: fc.array(toleration, { maxLength: 2 }),
  nodeSelector: fc.dictionary(mostly(['type', 'kubernetes.io/os'], ['bad key!']), mostly(['fast', ''], ['no way']), { maxKeys: 2 }),
  volumes: fc.uniqueArray(volume, { maxLength: 2, selector: (v) => v.name }),
  claims: fc.uniqueArray(claimTemplate, { maxLength: 2, selector: (c) => c.name }),
  finalizers: fc.array(mostly(['example.com/hold', 'hold'], ['not a/finalizer/name']), { maxLength: 2 }),
  hookLabels: fc.dictionary(mostly(['example.com/ready'], ['bad key!']), mostly(['true'], ['no way']), { maxKeys: 1 }),
  envName: opt(mostly(['MODE', 'my.var'], ['A=B'])),
  memory: opt(mostly(['64Mi'], ['1Gb', '-1'])),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function cloneSetFor(c: Case): CloneSet {
  const sources = { emptyDir: {}, hostPath: { path: '/tmp/x' }, configMap: { name: 'cfg' } };
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: c.name, namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'dry' } },
      template: {
        metadata: { labels: { app: 'dry' } },
        spec: {
          containers: [
            {
              name: 'main',
              image: 'nginx:alpine',
              ...(c.envName ? { env: [{ name: c.envName, value: 'x' }] } : {}),
              ...(c.memory ? { resources: { limits: { memory: c.memory } } } : {}),
            },
          ],
          ...(c.tolerations.length ? { tolerations: c.tolerations } : {}),
          ...(Object.keys(c.nodeSelector).length ? { nodeSelector: c.nodeSelector } : {}),
          ...(c.volumes.length ? { volumes: c.volumes.map((v) => ({ name: v.name, ...Object.fromEntries(v.sources.map((s) => [s, sources[s]])) })) } : {}),
        },
      },
      ...(c.claims.length
        ? {
            volumeClaimTemplates: c.claims.map((t) => ({
              ...(t.name ? { metadata: { name: t.name } } : {}),
              spec: { ...(t.accessModes ? { accessModes: t.accessModes } : {}), ...(t.storage ? { resources: { requests: { storage: t.storage } } } : {}) },
            })),
          }
        : {}),
      ...(c.finalizers.length || Object.keys(c.hookLabels).length
        ? { lifecycle: { preDelete: { finalizersHandler: c.finalizers, labelsHandler: c.hookLabels } } }
        : {}),
    },
  };
}

beforeAll(async () => {
  expect(kubectl(['create', 'namespace', namespace]).status).toBe(0);
  // Pod admission needs the namespace's default ServiceAccount.
  const deadline = Date.now() + 60_000;
  while (kubectl(['get', 'serviceaccount', 'default', '-n', namespace]).status !== 0) {
    if (Date.now() > deadline) throw new Error(`no default ServiceAccount in ${namespace}`);
    await new Promise((r) => setTimeout(r, 300));
  }
});

afterAll(() => {
  kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

describe('admission vs the apiserver', () => {
  it('every CloneSet the webhook accepts makes pods and PVCs the apiserver accepts', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        const cs = defaultCloneSet(cloneSetFor(c));
        const errs = validateCloneSet(cs);
        if (errs.length > 0) {
          refused++;
          return;
        }
        accepted++;
        const r = kubectl(['create', '-n', namespace, '--dry-run=server', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objectsFor(cs) }));
        expect(r.status, `admission accepted ${JSON.stringify(cs.spec)} but the apiserver said: ${r.stderr}`).toBe(0);
      }),
      { numRuns: 200, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) },
    );
    // The generator must exercise both sides, or the property proves nothing.
    expect(accepted).toBeGreaterThan(5);
    expect(refused).toBeGreaterThan(5);
  });

  it('the refusals name the field (a sample the apiserver would refuse at pod creation)', () => {
    const cs = defaultCloneSet(
      cloneSetFor({ name: 'web', tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }], nodeSelector: {}, volumes: [], claims: [], finalizers: [], hookLabels: {}, envName: undefined, memory: undefined }),
    );
    expect(validateCloneSet(cs).map(formatFieldError)).toEqual([
      "spec.template.spec.tolerations[0].value: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
    ]);
    const r = kubectl(['create', '-n', namespace, '--dry-run=server', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objectsFor(cs) }));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('tolerations[0].operator');
  });
});
