// The plugin's only door to the apiserver: read and patch one CloneSet, follow its changes,
// list its revisions and pods, and read what the controller's caches hold for `plan`.
// Commands see this port, never the client.
import { KRUISE_LABELS, labelSelectorToString, type CloneSet } from '@cloneset-suite/api-types';
import { ForbiddenError, isGone, isNotFound, Resources, type GroupVersionResource, type KubeClient, type KubeObject, type Patch, type ResourceClient } from '@cloneset-suite/kube-runtime';
import type { V1ControllerRevision, V1Node, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import type { ClusterReads } from '@cloneset-suite/cloneset-controller';

type CloneSetObject = CloneSet & KubeObject;

export const CLONESETS = { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets', kind: 'CloneSet', namespaced: true } as const;

export interface CloneSetApi {
  readonly namespace: string;
  get(name: string): Promise<CloneSet>;
  patch(name: string, patch: Patch): Promise<CloneSet>;
  /** The CloneSet now, then after every change, until the signal aborts. */
  follow(name: string, signal: AbortSignal): AsyncIterable<CloneSet>;
  revisions(cs: CloneSet): Promise<V1ControllerRevision[]>;
  pods(cs: CloneSet): Promise<V1Pod[]>;
  /** What the CloneSet controller's caches hold of the namespace for this CloneSet (`plan`). */
  planReads(cs: CloneSet, o: { imagePullJobs: boolean }): Promise<ClusterReads>;
}

const FIELD_MANAGER = 'kubectl-cloneset';

function selectorOf(cs: CloneSet): string {
  return cs.status?.labelSelector ?? labelSelectorToString(cs.spec.selector);
}

export class KubeCloneSetApi implements CloneSetApi {
  readonly namespace: string;
  private readonly clonesets: ResourceClient<CloneSetObject>;
  private readonly client: KubeClient;

  constructor(client: KubeClient, namespace: string) {
    this.client = client;
    this.namespace = namespace;
    this.clonesets = client.resource<CloneSetObject>(CLONESETS);
  }

  get(name: string): Promise<CloneSet> {
    return this.clonesets.get(this.namespace, name);
  }

  patch(name: string, patch: Patch): Promise<CloneSet> {
    return this.clonesets.patch(this.namespace, name, patch, { fieldManager: FIELD_MANAGER });
  }

  async *follow(name: string, signal: AbortSignal): AsyncIterable<CloneSet> {
    while (!signal.aborted) {
      const cs = await this.clonesets.get(this.namespace, name, { signal });
      yield cs;
      try {
        const events = this.clonesets.watch({
          namespace: this.namespace,
          fieldSelector: `metadata.name=${name}`,
          ...(cs.metadata?.resourceVersion ? { resourceVersion: cs.metadata.resourceVersion } : {}),
          timeoutSeconds: 300,
          signal,
        });
        for await (const event of events) {
          if (event.type === 'DELETED') throw new Error(`clone "${name}" was deleted`);
          if (event.type === 'ADDED' || event.type === 'MODIFIED') yield event.object;
          if (event.type === 'ERROR') break; // e.g. 410 Gone: read it again and watch from there
        }
      } catch (err) {
        if (signal.aborted) return;
        if (!isGone(err)) throw err;
      }
    }
  }

  /** Revisions carry the template's labels, so the CloneSet's selector narrows the list; the owner decides. */
  async revisions(cs: CloneSet): Promise<V1ControllerRevision[]> {
    const list = await this.client
      .resource<V1ControllerRevision & KubeObject>(Resources.controllerRevisions)
      .listAll({ namespace: this.namespace, labelSelector: selectorOf(cs) });
    return list.items;
  }

  async pods(cs: CloneSet): Promise<V1Pod[]> {
    const uid = cs.metadata?.uid;
    const list = await this.client.resource<V1Pod & KubeObject>(Resources.pods).listAll({
      namespace: this.namespace,
      labelSelector: selectorOf(cs),
    });
    return list.items.filter((p) => p.metadata?.ownerReferences?.some((o) => o.controller === true && o.uid === uid));
  }

  async planReads(cs: CloneSet, o: { imagePullJobs: boolean }): Promise<ClusterReads> {
    const list = async <T>(resource: GroupVersionResource, labelSelector?: string): Promise<T[]> =>
      (await this.client.resource<T & KubeObject>(resource).listAll({ namespace: this.namespace, ...(labelSelector ? { labelSelector } : {}) })).items;
    const [pods, pvcs, revisions, nodes, imagePullJobCrdPresent] = await Promise.all([
      // Every pod of the namespace, as the controller's cache: a pod of any owner can hold a name it would create.
      list<V1Pod>(Resources.pods),
      list<V1PersistentVolumeClaim>(Resources.persistentVolumeClaims, KRUISE_LABELS.cloneSetInstanceId),
      list<V1ControllerRevision>(Resources.controllerRevisions),
      this.nodes(),
      o.imagePullJobs ? this.servesImagePullJobs() : Promise.resolve(false),
    ]);
    return { cs, pods, pvcs, revisions, ...nodes, imagePullJobCrdPresent };
  }

  /** Node labels rank a scale-in by topology; a user who may not list nodes still gets a plan. */
  private async nodes(): Promise<Pick<ClusterReads, 'nodes' | 'nodesUnreadable'>> {
    try {
      return { nodes: (await this.client.resource<V1Node & KubeObject>(Resources.nodes).listAll()).items };
    } catch (err) {
      if (err instanceof ForbiddenError) return { nodes: undefined, nodesUnreadable: 'forbidden: the user may not list nodes' };
      throw err;
    }
  }

  private async servesImagePullJobs(): Promise<boolean> {
    try {
      const served = await this.client.rest.request<{ resources?: { name?: string }[] }>({ method: 'GET', path: '/apis/apps.kruise.io/v1alpha1' });
      return (served.resources ?? []).some((r) => r.name === 'imagepulljobs');
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }
}
