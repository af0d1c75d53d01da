// Zero-disruption takeover (README, Compatibility with OpenKruise): a CloneSet, its ControllerRevision (with a hash our
// controller would never generate, as another implementation's) and ready pods exist before the
// controller starts. Starting it must not write to any pod, and must adopt that revision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { installCrds, isPodWrite, startController, withNamespace, type RunningController } from './harness.ts';
import { INSTANCE_ID, LIFECYCLE_STATE, REVISION_LABEL, TEMPLATE_HASH_LABEL, apply, getCloneSet, listPods, listRevisions, podWriteKey, readyPods, scale, sleep, type Pod } from './support.ts';

// Our hashes are decimal digits encoded through the alphabet, so only "456789bcdf" appear:
// this one, with z/x/q/w/v, can only have been made by someone else.
const FOREIGN_HASH = 'zxq7wv2';
const REVISION = `tk-${FOREIGN_HASH}`;
const IDS = ['hzk4m', 'pqw8t', 'vx2rs'];

// The template as kruise's webhook would have stored it (pod defaults injected).
const podSpec = {
  containers: [
    {
      name: 'main',
      image: 'nginx:alpine',
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    },
  ],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  schedulerName: 'default-scheduler',
  securityContext: {},
};

// What Go's encoder writes for the revision data: sorted keys, creationTimestamp null,
// empty resources, the $patch directive.
const revisionData = {
  spec: {
    template: {
      $patch: 'replace',
      metadata: { creationTimestamp: null, labels: { app: 'tk' } },
      spec: {
        containers: [{ ...podSpec.containers[0], resources: {} }],
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
      },
    },
  },
};

describe('zero-disruption takeover', () => {
  let ns: string;
  let removeNs: () => Promise<void>;
  let controller: RunningController | undefined;
  let before: Pod[];

  beforeAll(async () => {
    await installCrds();
    ({ name: ns, remove: removeNs } = await withNamespace('cs-takeover'));
    await apply(ns, {
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'tk' },
      spec: {
        replicas: 3,
        revisionHistoryLimit: 10,
        selector: { matchLabels: { app: 'tk' } },
        template: { metadata: { labels: { app: 'tk' } }, spec: podSpec },
        updateStrategy: { type: 'ReCreate', partition: 0, maxUnavailable: '20%', maxSurge: 0 },
      },
    });
    const cs = (await getCloneSet(ns, 'tk'))!;
    const owner = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'tk', uid: cs.metadata.uid, controller: true, blockOwnerDeletion: true };
    await apply(ns, {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: REVISION,
        labels: { app: 'tk', 'controller.kubernetes.io/hash': FOREIGN_HASH },
        annotations: { 'kruise.io/cloneset-volumeclaimtemplate-hash': '' },
        ownerReferences: [owner],
      },
      data: revisionData,
      revision: 1,
    });
    for (const id of IDS) {
      await apply(ns, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: `tk-${id}`,
          generateName: 'tk-',
          labels: { app: 'tk', [REVISION_LABEL]: REVISION, [TEMPLATE_HASH_LABEL]: FOREIGN_HASH, [INSTANCE_ID]: id, [LIFECYCLE_STATE]: 'Normal' },
          annotations: { 'lifecycle.apps.kruise.io/timestamp': '2026-01-01T00:00:00Z' },
          ownerReferences: [owner],
        },
        spec: { ...podSpec, readinessGates: [{ conditionType: 'InPlaceUpdateReady' }, { conditionType: 'KruisePodReady' }] },
      });
      const conditions = ['InPlaceUpdateReady', 'KruisePodReady'].map((type) => ({ type, status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }));
      await kubectl(['patch', 'pod', `tk-${id}`, '-n', ns, '--subresource=status', '--type=strategic', '-p', JSON.stringify({ status: { conditions } })]);
    }
    await readyPods(ns, 'app=tk', 3);
    // Let the simulated kubelet finish its status writes before taking the reference snapshot.
    await sleep(1_500);
    before = await listPods(ns, 'app=tk');
  });
  afterAll(async () => {
    await controller?.stop();
    await removeNs?.();
  });

  it('writes nothing to the pods and adopts the existing revision as current and update revision', async () => {
    controller = startController(ns);
    const cs = await eventually('status written', async () => {
      const c = await getCloneSet(ns, 'tk');
      return c?.status?.observedGeneration === c?.metadata.generation && c?.status?.readyReplicas === 3 ? c : undefined;
    });
    expect(cs.status).toMatchObject({ currentRevision: REVISION, updateRevision: REVISION, replicas: 3, updatedReplicas: 3, availableReplicas: 3 });
    await sleep(2_000);
    expect(controller.requests().filter(isPodWrite)).toEqual([]);
    const after = await listPods(ns, 'app=tk');
    expect(after.map(podWriteKey).sort()).toEqual(before.map(podWriteKey).sort());
    expect((await listRevisions(ns)).map((r) => r.metadata.name)).toEqual([REVISION]);
  });

  it('creates new pods at the adopted revision, still without a new ControllerRevision', async () => {
    await scale(ns, 'tk', 4);
    const pods = await readyPods(ns, 'app=tk', 4);
    const added = pods.find((p) => !before.some((b) => b.metadata.uid === p.metadata.uid))!;
    expect(added.metadata.labels).toMatchObject({ [REVISION_LABEL]: REVISION, [TEMPLATE_HASH_LABEL]: FOREIGN_HASH });
    expect((await listRevisions(ns)).map((r) => r.metadata.name)).toEqual([REVISION]);
    // The pre-existing pods were still not written to: only the new pod was.
    const podWrites = controller!.requests().filter(isPodWrite);
    expect(podWrites.filter((r) => r.method === 'POST')).toHaveLength(1);
    const touched = new Set(podWrites.filter((r) => r.method !== 'POST').map((r) => r.path.split('/')[6]));
    expect([...touched]).toEqual([added.metadata.name]);
  });
});
