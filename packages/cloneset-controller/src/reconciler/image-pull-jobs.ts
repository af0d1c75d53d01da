// Image pre-download, the I/O half (OpenKruise's PreDownloadImageForInPlaceUpdate; we ship no node daemon, so only where the CRD is served): is the ImagePullJob CRD
// served (API discovery, cached for minutes, never asked per reconcile), and clean-up of
// the jobs a CloneSet owns. Without the CRD the feature is off, and the log says so once.
import { isNotFound, type Clock, type KubeClient, type KubeObject, type Logger } from '@cloneset-suite/kube-runtime';
import type { GroupVersionResource } from '@cloneset-suite/kube-runtime';

export const imagePullJobResource = {
  group: 'apps.kruise.io',
  version: 'v1alpha1',
  resource: 'imagepulljobs',
  kind: 'ImagePullJob',
  namespaced: true,
} as const satisfies GroupVersionResource;

/** How long a discovery answer is trusted before asking again. */
export const CRD_RECHECK_MS = 3 * 60_000;

interface ApiResourceList {
  resources?: { name?: string }[];
}

export interface ImagePullJobSupportOptions {
  client: KubeClient;
  clock: Clock;
  logger: Logger;
  /** The PreDownloadImageForInPlaceUpdate gate: when off, nothing is ever asked or logged. */
  enabled: boolean;
  /** The controller name carried by the log lines. */
  controller: string;
  recheckMs?: number;
}

/**
 * Whether pre-download can run: the gate is on and the apiserver serves imagepulljobs in
 * apps.kruise.io/v1alpha1. Discovery answers are cached for `recheckMs`; concurrent callers
 * share one request; a failed discovery keeps the last answer (false before any).
 * Also remembers, per CloneSet, which settled revision its jobs were already cleaned up
 * for, so a settled CloneSet does not look for ImagePullJobs on every pass.
 */
export class ImagePullJobSupport {
  private readonly opts: ImagePullJobSupportOptions;
  private readonly recheckMs: number;
  private present: boolean | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<boolean> | undefined;
  private readonly cleaned = new Map<string, string>();

  constructor(opts: ImagePullJobSupportOptions) {
    this.opts = opts;
    this.recheckMs = opts.recheckMs ?? CRD_RECHECK_MS;
  }

  /** The gate is on and the CRD is served (as of the last discovery, at most recheckMs old). */
  async available(signal?: AbortSignal): Promise<boolean> {
    if (!this.opts.enabled) return false;
    if (this.present !== undefined && this.opts.clock.now() - this.checkedAt < this.recheckMs) return this.present;
    this.inFlight ??= this.discover(signal).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async discover(signal?: AbortSignal): Promise<boolean> {
    const path = `/apis/${imagePullJobResource.group}/${imagePullJobResource.version}`;
    let served: boolean;
    try {
      const list = await this.opts.client.rest.request<ApiResourceList>({ method: 'GET', path, signal });
      served = (list.resources ?? []).some((r) => r.name === imagePullJobResource.resource);
    } catch (err) {
      if (!isNotFound(err)) {
        // Transient (apiserver busy, aborted): keep what we knew; ask again on the next pass.
        this.opts.logger.debug({ err, controller: this.opts.controller }, 'ImagePullJob discovery failed');
        return this.present ?? false;
      }
      served = false;
    }
    this.checkedAt = this.opts.clock.now();
    const before = this.present;
    this.present = served;
    if (before !== served) this.report(served);
    return served;
  }

  /** One line per change of state, the first one included. */
  private report(served: boolean): void {
    const fields = { controller: this.opts.controller, featureGate: 'PreDownloadImageForInPlaceUpdate', crd: 'imagepulljobs.apps.kruise.io' };
    if (served) {
      this.opts.logger.info(fields, 'image pre-download is on: ImagePullJobs are created ahead of in-place updates');
    } else {
      this.opts.logger.warn(fields, 'image pre-download is off: the ImagePullJob CRD is not installed (the gate PreDownloadImageForInPlaceUpdate is on)');
    }
    this.cleaned.clear();
  }

  /** Whether the jobs of this CloneSet (key, uid) were already cleaned up for this settled revision. */
  alreadyCleaned(key: string, uid: string, revision: string): boolean {
    return this.cleaned.get(key) === `${uid}/${revision}`;
  }

  markCleaned(key: string, uid: string, revision: string): void {
    this.cleaned.set(key, `${uid}/${revision}`);
  }

  /** A job was created for this CloneSet, or it is gone: the next settled pass looks again. */
  forget(key: string): void {
    this.cleaned.delete(key);
  }
}

/**
 * Deletes the named ImagePullJobs of the namespace that exist and are controlled by the
 * CloneSet `uid`: each is read by name, skipped unless ours, and deleted with a uid
 * precondition (a job recreated in between is not touched). Returns the names deleted.
 * No list call: the names come from the plan.
 */
export async function deleteImagePullJobs(
  client: KubeClient,
  namespace: string | undefined,
  names: readonly string[],
  uid: string,
  signal: AbortSignal,
): Promise<string[]> {
  const jobs = client.resource<KubeObject>(imagePullJobResource);
  const deleted: string[] = [];
  for (const name of names) {
    let job: KubeObject;
    try {
      job = await jobs.get(namespace, name, { signal });
    } catch (err) {
      if (isNotFound(err)) continue;
      throw err;
    }
    if (!job.metadata || !job.metadata.ownerReferences?.some((r) => r.controller === true && r.uid === uid)) continue;
    try {
      await jobs.delete(namespace, name, { signal, ...(job.metadata.uid ? { preconditions: { uid: job.metadata.uid } } : {}) });
      deleted.push(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return deleted;
}
