// The operating-controller example of README.md, verbatim (test/unit/readme.test.ts keeps them equal), so tsc checks it.
import { KubeClient, Resources, loadKubeConfig } from '@cloneset-suite/kube-runtime';
import { OpsLifecycleClient, allowOps, isDuringOps, preparingToDeleteHook, type OperationAdapter, type Pod } from '@cloneset-suite/podopslifecycle';

const client = new KubeClient({ kubeConfig: loadKubeConfig() });
const ops = new OpsLifecycleClient(client);
// id: one per controller; type: what it does; whenBegin: the pod will be deleted, say so.
const restart: OperationAdapter = { id: 'my-restarter', type: 'Restart', allowMultiType: true, whenBegin: preparingToDeleteHook };

/** One reconcile of a pod that needs a restart; returns a requeue delay in ms, if any. */
export async function reconcile(pod: Pod): Promise<number | undefined> {
  const { namespace = 'default', name = '' } = pod.metadata ?? {};
  if (!isDuringOps(pod, restart)) {
    await ops.begin(namespace, name, restart); // PreCheck starts; the pod's update wakes us again
    return undefined;
  }
  const allowed = allowOps(pod, restart, Date.now(), 5); // operationDelaySeconds: 5
  if (!allowed.allowed) return allowed.requeueAfterMs; // not yet: traffic is being drained
  await client.resource(Resources.pods).delete(namespace, name); // the operation itself
  return undefined; // a deleting operation never finishes; an in-place one calls ops.finish(...)
}
