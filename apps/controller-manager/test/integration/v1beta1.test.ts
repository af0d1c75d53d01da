// A cluster moving from OpenKruise's next release (CloneSet stored as apps.kruise.io/v1beta1,
// its conversion webhook) to this controller: a CloneSet written through v1beta1 under a CRD
// shaped like OpenKruise main's, then our CRD applied over it. Without the opt-in, v1beta1 stays
// served while it is stored (said once). With --serve-v1beta1 the object reads the same through
// both versions, `kubectl scale`, the status subresource and the printer columns work on both,
// and its revision is the one the same CloneSet gets when written as v1alpha1. Switching the
// opt-in off is refused while v1beta1 is stored, and takes the CRD back to v1alpha1 only once
// storage is migrated.
import path from 'node:path';
import { cloneSetCrd, defaultPodTemplate, type CloneSet, type CustomResourceDefinition } from '@cloneset-suite/api-types';
import { createTestNamespace, eventually, getJson, kubectl, repoRoot } from '@cloneset-suite/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrdConversionState } from '../../src/certs/crd-conversion.ts';
import { OPT_IN_ANNOTATION } from '../../src/certs/crd-versions.ts';
import { CLONESET_CRD_NAME, installCrds, pointCrdConversion, readCrdConversion, type InstalledCrds } from '../../src/local-install.ts';
import { startUrlModeManager, type UrlModeManager } from '../support/url-mode-manager.ts';

const V1ALPHA1 = 'clonesets.v1alpha1.apps.kruise.io';
const V1BETA1 = 'clonesets.v1beta1.apps.kruise.io';
const run = (args: readonly string[], input?: string): Promise<string> => kubectl(args, input);

interface CloneSetJson {
  metadata: { name: string; annotations?: Record<string, string>; generation?: number };
  spec: Record<string, unknown> & { replicas?: number; scaleStrategy?: Record<string, unknown>; updateStrategy?: Record<string, unknown> };
  status?: { replicas?: number; updatedReadyReplicas?: number; updateRevision?: string; labelSelector?: string; observedGeneration?: number };
}

interface Revision {
  metadata: { name: string; labels?: Record<string, string> };
  data: unknown;
}

/**
 * The shape of OpenKruise main's clonesets CRD (config/crd/bases plus its webhook patch): both
 * versions served, v1beta1 the storage version, conversion by kruise's own webhook Service.
 */
function openKruiseMainCrd(): CustomResourceDefinition {
  const crd = cloneSetCrd({ v1beta1: true });
  for (const v of crd.spec.versions) v.storage = v.name === 'v1beta1';
  crd.spec.conversion = {
    strategy: 'Webhook',
    webhook: { conversionReviewVersions: ['v1', 'v1beta1'], clientConfig: { service: { namespace: 'kruise-system', name: 'kruise-webhook-service', path: '/convert' } } },
  };
  return crd;
}

type PodTemplate = CloneSet['spec']['template'];

const template = (app: string): PodTemplate => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } });

/** A v1beta1 CloneSet as OpenKruise's webhook and CRD defaults leave it. */
function kruiseWritten(name: string): unknown {
  return {
    apiVersion: 'apps.kruise.io/v1beta1',
    kind: 'CloneSet',
    metadata: { name },
    spec: {
      replicas: 2,
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: name } },
      template: defaultPodTemplate(template(name)),
      scaleStrategy: { enablePVCReuse: false },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', partition: 0, maxUnavailable: 1, maxSurge: 0, inPlaceUpdateStrategy: {} } },
    },
  };
}

describe('CloneSet apps.kruise.io/v1beta1, taking over from OpenKruise main', () => {
  let ns: { name: string; remove: () => Promise<void> };
  let manager: UrlModeManager | undefined;
  let before: CrdConversionState | undefined;
  let storedVersionsBefore: string[] | undefined;
  let installed: InstalledCrds;
  const managerArgs = ['--controllers=cloneset', '--leader-elect=false'];
  /** Stops the running manager and starts one with `extra` flags, converting (URL mode, as npm start). */
  const restartManager = async (extra: string[]): Promise<UrlModeManager> => {
    await manager?.stop();
    manager = await startUrlModeManager(ns.name, 'cs-beta', [...managerArgs, ...extra], { convert: true });
    return manager;
  };
  /** kubectl keeps the served versions it discovered on disk; a user runs `kubectl api-resources` after a switch. */
  const refreshDiscovery = (): Promise<string> => run(['api-resources', '--api-group=apps.kruise.io']);
  const crdNow = async () => (await getJson<{ metadata: { annotations?: Record<string, string> }; spec: { versions: { name: string; served: boolean; storage: boolean }[]; conversion?: CrdConversionState }; status: { storedVersions: string[] } }>(['crd', CLONESET_CRD_NAME]))!;
  const servedNow = async (): Promise<string[]> => (await crdNow()).spec.versions.filter((v) => v.served).map((v) => v.name);

  const get = (resource: string, name: string) => getJson<CloneSetJson>([resource, name, '-n', ns.name]);
  const revision = async (resource: string, name: string): Promise<Revision> => {
    const rev = await eventually(`${name} has an update revision`, async () => (await get(resource, name))?.status?.updateRevision, { timeoutMs: 60_000 });
    return (await getJson<Revision>(['controllerrevision', rev, '-n', ns.name]))!;
  };
  const settled = (name: string, replicas: number) =>
    eventually(`${name}: ${replicas} updated ready pods`, async () => {
      const cs = await get(V1ALPHA1, name);
      return cs?.status?.updatedReadyReplicas === replicas && cs.status.replicas === replicas && cs.status.observedGeneration === cs.metadata.generation ? cs : undefined;
    }, { timeoutMs: 90_000, intervalMs: 300 });

  beforeAll(async () => {
    before = await readCrdConversion(run, CLONESET_CRD_NAME);
    storedVersionsBefore = (await getJson<{ status?: { storedVersions?: string[] } }>(['crd', CLONESET_CRD_NAME]))?.status?.storedVersions;
    ns = await createTestNamespace('csbeta');
    // OpenKruise main's CRD first, over whatever is installed, storing v1beta1 only.
    const theirs = openKruiseMainCrd() as CustomResourceDefinition & { metadata: { resourceVersion?: string } };
    const current = await getJson<{ metadata: { resourceVersion: string } }>(['crd', CLONESET_CRD_NAME]);
    if (current) theirs.metadata.resourceVersion = current.metadata.resourceVersion;
    await run([current ? 'replace' : 'create', '-f', '-'], JSON.stringify(theirs));
    await run(['patch', 'crd', CLONESET_CRD_NAME, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { storedVersions: ['v1beta1'] } })]);
    await eventually('their CRD serves v1beta1 as the storage version', async () => {
      const crd = await getJson<{ spec: { versions: { name: string; storage: boolean }[] }; status?: { storedVersions?: string[] } }>(['crd', CLONESET_CRD_NAME]);
      return crd?.spec.versions.find((v) => v.storage)?.name === 'v1beta1' && crd.status?.storedVersions?.join() === 'v1beta1';
    });
    await eventually('a CloneSet written through v1beta1 (stored as v1beta1)', async () => {
      await run(['create', '-n', ns.name, '-f', '-'], JSON.stringify(kruiseWritten('from-kruise')));
      return true;
    });

    // Then ours over it, without the opt-in, and the manager converting (URL mode, as npm start runs it).
    installed = await installCrds(run, path.join(repoRoot, 'crds'));
    await restartManager([]);
    await eventually('the manager converts the stored v1beta1 CloneSet to v1alpha1', () => get(V1ALPHA1, 'from-kruise'), { timeoutMs: 60_000, intervalMs: 500 });
  });

  afterAll(async () => {
    // Leave the cluster as found: every CloneSet here rewritten as v1alpha1 (while the manager
    // still converts), then the storedVersions of before, so no later CRD must keep v1beta1.
    const rewritten = await eventually('every CloneSet rewritten as v1alpha1', async () => {
      await run(['get', V1ALPHA1, '-n', ns.name, '-o', 'json']).then((list) => run(['replace', '-f', '-'], list));
      return true;
    }).catch(() => false);
    if (rewritten && storedVersionsBefore && !storedVersionsBefore.includes('v1beta1')) {
      await run(['patch', 'crd', CLONESET_CRD_NAME, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { storedVersions: storedVersionsBefore } })]).catch(() => undefined);
    }
    await manager?.stop();
    // Ours again (v1alpha1 only once nothing is stored as v1beta1), converting through whatever
    // converted before this suite, if anything did.
    await installCrds(run, path.join(repoRoot, 'crds')).catch(() => undefined);
    const previous = before?.strategy === 'Webhook' ? before.webhook?.clientConfig : undefined;
    if (previous) await pointCrdConversion(run, CLONESET_CRD_NAME, previous).catch(() => undefined);
    // The suites after this one use the unversioned resource: kubectl must not ask for v1beta1.
    await refreshDiscovery().catch(() => undefined);
    await ns?.remove();
  });

  it('without the opt-in, our CRD is accepted over theirs: v1alpha1 stores again, v1beta1 stays served while stored, and each says so', async () => {
    const crd = await crdNow();
    expect(crd.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1alpha1', true, true], ['v1beta1', true, false]]);
    expect(crd.status.storedVersions).toEqual(['v1beta1', 'v1alpha1']);
    expect(crd.metadata.annotations?.[OPT_IN_ANNOTATION]).toBeUndefined();
    await eventually('the manager trusts itself for conversion', async () => (await crdNow()).spec.conversion?.webhook?.clientConfig?.caBundle);
    expect((await crdNow()).spec.conversion?.webhook?.clientConfig?.url).toBe(`${manager!.webhookUrlBase}/convert`);
    expect(installed).toEqual({ servesV1beta1: true, notice: expect.stringContaining('status.storedVersions of clonesets.apps.kruise.io lists v1beta1') });
    const saying = (): string[] => manager!.process.output().split('\n').filter((l) => l.includes('v1beta1 stays served although --serve-v1beta1 is off'));
    const said = await eventually('the manager says why v1beta1 stays served', () => Promise.resolve(saying().length ? saying() : undefined), { timeoutMs: 30_000 });
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0]!)).toMatchObject({ level: 'warn' });
    expect((await get(V1BETA1, 'from-kruise'))!.spec.updateStrategy).toMatchObject({ type: 'RollingUpdate' });
  });

  it('with --serve-v1beta1 the manager marks the CRD as opted in', async () => {
    await restartManager(['--serve-v1beta1']);
    await eventually('the opt-in mark', async () => (await crdNow()).metadata.annotations?.[OPT_IN_ANNOTATION] === 'true');
    expect(await servedNow()).toEqual(['v1alpha1', 'v1beta1']);
  });

  it('reads the same object through both versions', async () => {
    const alpha = await get(V1ALPHA1, 'from-kruise');
    expect(alpha!.spec.updateStrategy).toEqual({ type: 'InPlaceIfPossible', partition: 0, maxUnavailable: 1, maxSurge: 0, inPlaceUpdateStrategy: {} });
    expect(alpha!.spec.scaleStrategy).toEqual({ disablePVCReuse: true });
    const beta = await get(V1BETA1, 'from-kruise');
    expect(beta!.spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', partition: 0, maxUnavailable: 1, maxSurge: 0, inPlaceUpdateStrategy: {} } });
    expect(beta!.spec.scaleStrategy).toEqual({ enablePVCReuse: false });
    for (const cs of [alpha, beta]) expect(cs!.metadata.annotations ?? {}).toEqual({});
  });

  it('the controller runs it (reading v1alpha1); the status subresource serves and takes both versions', async () => {
    await settled('from-kruise', 2);
    for (const resource of [V1ALPHA1, V1BETA1]) {
      const status = await getJson<CloneSetJson>([resource, 'from-kruise', '-n', ns.name, '--subresource=status']);
      expect(status!.status).toMatchObject({ replicas: 2, updatedReadyReplicas: 2, labelSelector: 'app=from-kruise' });
    }
    const generation = (await get(V1ALPHA1, 'from-kruise'))!.metadata.generation;
    await run(['patch', V1BETA1, 'from-kruise', '-n', ns.name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { labelSelector: 'app=from-kruise' } })]);
    expect((await get(V1ALPHA1, 'from-kruise'))!.metadata.generation).toBe(generation);
  });

  // Twins share their template (labels included: they are part of the revision), so their
  // selectors overlap; with no replicas of their own they leave the other's pods alone.
  it('has the revision the same CloneSet gets when written as v1alpha1', async () => {
    const written = kruiseWritten('from-kruise') as { spec: Record<string, unknown> };
    await run(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'twin' },
      spec: { replicas: 0, selector: written.spec.selector, template: template('from-kruise'), updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } },
    }));
    const [theirs, ours] = [await revision(V1ALPHA1, 'from-kruise'), await revision(V1ALPHA1, 'twin')];
    expect(theirs.metadata.name.replace('from-kruise-', '')).toBe(ours.metadata.name.replace('twin-', ''));
    expect(theirs.metadata.labels?.['controller.kubernetes.io/hash']).toBe(ours.metadata.labels?.['controller.kubernetes.io/hash']);
    expect(theirs.data).toEqual(ours.data);
  });

  it('a CloneSet written through v1beta1 now gets the admission defaults and the revision of its v1alpha1 twin', async () => {
    const spec = { replicas: 0, selector: { matchLabels: { app: 'shared' } }, template: template('shared') };
    await run(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({ apiVersion: 'apps.kruise.io/v1beta1', kind: 'CloneSet', metadata: { name: 'beta-new' }, spec: { ...spec, updateStrategy: { rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible' } } } }));
    await run(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'alpha-new' }, spec: { ...spec, updateStrategy: { type: 'InPlaceIfPossible' } } }));
    const beta = await get(V1BETA1, 'beta-new');
    expect(beta!.spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', partition: 0, maxUnavailable: '20%', maxSurge: 0, inPlaceUpdateStrategy: {} } });
    expect(beta!.spec.scaleStrategy).toEqual({ enablePVCReuse: false });
    expect(beta!.spec.revisionHistoryLimit).toBe(10);
    expect((beta!.spec.template as PodTemplate).spec?.containers[0]?.imagePullPolicy).toBe('Always');
    const [b, a] = [await revision(V1ALPHA1, 'beta-new'), await revision(V1ALPHA1, 'alpha-new')];
    expect(b.metadata.labels?.['controller.kubernetes.io/hash']).toBe(a.metadata.labels?.['controller.kubernetes.io/hash']);
    expect(b.data).toEqual(a.data);
  });

  it('a form only v1alpha1 can express survives a write of the v1beta1 view (the carry annotation)', async () => {
    await run(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'spelled' },
      spec: { replicas: 0, selector: { matchLabels: { app: 'spelled' } }, template: template('spelled'), scaleStrategy: { disablePVCReuse: false } },
    }));
    const beta = (await get(V1BETA1, 'spelled'))!;
    expect(beta.spec.scaleStrategy).toEqual({ enablePVCReuse: true });
    expect(Object.keys(beta.metadata.annotations ?? {})).toContain('conversion.cloneset-suite.io/v1alpha1-fields');
    // Read and written again if the controller's status write came in between (a 409).
    await eventually('the v1beta1 view written back', async () => {
      await run(['replace', '-f', '-'], JSON.stringify((await get(V1BETA1, 'spelled'))!));
      return true;
    });
    const alpha = (await get(V1ALPHA1, 'spelled'))!;
    expect(alpha.spec.scaleStrategy).toEqual({ disablePVCReuse: false });
    expect(Object.keys(alpha.metadata.annotations ?? {}).filter((k) => k.startsWith('conversion.cloneset-suite.io/'))).toEqual([]);
  });

  it('kubectl scale works on both versions', async () => {
    await run(['scale', `${V1BETA1}/from-kruise`, '-n', ns.name, '--replicas=3']);
    await settled('from-kruise', 3);
    await run(['scale', `${V1ALPHA1}/from-kruise`, '-n', ns.name, '--replicas=1']);
    await settled('from-kruise', 1);
    expect((await get(V1BETA1, 'from-kruise'))!.spec.replicas).toBe(1);
  });

  it('prints the same columns through both versions', async () => {
    await settled('from-kruise', 1);
    const columns = async (resource: string, wide: boolean): Promise<string[][]> =>
      (await run(['get', resource, 'from-kruise', '-n', ns.name, ...(wide ? ['-o', 'wide'] : [])])).trim().split('\n').map((l) => l.trim().split(/\s+/));
    for (const resource of [V1ALPHA1, V1BETA1]) {
      const [header, row] = await columns(resource, false);
      expect(header).toEqual(['NAME', 'DESIRED', 'UPDATED', 'UPDATED_READY', 'UPDATED_AVAILABLE', 'READY', 'TOTAL', 'AGE']);
      expect(row!.slice(0, 7)).toEqual(['from-kruise', '1', '1', '1', '1', '1', '1']);
      const [wideHeader, wideRow] = await columns(resource, true);
      expect(wideHeader!.slice(-3)).toEqual(['CONTAINERS', 'IMAGES', 'SELECTOR']);
      expect(wideRow!.slice(-3)).toEqual(['main', 'nginx:1.27', 'app=from-kruise']);
    }
  });
  it('switching the opt-in off while v1beta1 is stored is refused, naming the stored version and the migration step', async () => {
    await restartManager([]);
    const refusal = await eventually('the refusal', () => Promise.resolve(manager!.process.output().split('\n').find((l) => l.includes('refusing to stop serving v1beta1'))), { timeoutMs: 30_000 });
    expect(JSON.parse(refusal)).toMatchObject({ level: 'error' });
    expect(refusal).toContain('status.storedVersions of clonesets.apps.kruise.io lists v1beta1');
    expect(refusal).toContain('kubectl replace');
    expect(await servedNow()).toEqual(['v1alpha1', 'v1beta1']);
    expect((await crdNow()).metadata.annotations?.[OPT_IN_ANNOTATION]).toBe('true');
    expect(await get(V1BETA1, 'from-kruise')).toBeDefined();
  });

  it('once storage is migrated as the README says, a manager without the opt-in serves v1alpha1 only and nothing converts', async () => {
    await eventually('every CloneSet rewritten as v1alpha1', async () => {
      await run(['get', V1ALPHA1, '-n', ns.name, '-o', 'json']).then((list) => run(['replace', '-f', '-'], list));
      return true;
    });
    await run(['patch', 'crd', CLONESET_CRD_NAME, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { storedVersions: ['v1alpha1'] } })]);
    await restartManager([]);
    await eventually('v1alpha1 only', async () => (await servedNow()).join() === 'v1alpha1', { timeoutMs: 30_000 });
    await refreshDiscovery();
    const crd = await crdNow();
    expect(crd.metadata.annotations?.[OPT_IN_ANNOTATION]).toBeUndefined();
    expect(crd.spec.conversion?.strategy).toBe('None');
    expect(await run(['get', 'clone', 'from-kruise', '-n', ns.name, '-o', 'jsonpath={.apiVersion}'])).toBe('apps.kruise.io/v1alpha1');
    await settled('from-kruise', 1);
  });
});
