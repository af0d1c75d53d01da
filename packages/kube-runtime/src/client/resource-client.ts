// A typed client for one GVR: the verbs controllers need, with typed errors and pagination.
import { ConflictError, InvalidError, isNotFound, type Status } from './errors.ts';
import { apiVersionOf, isBuiltIn, resourcePath, type GroupVersionResource } from './gvr.ts';
import { PatchContentTypes, type Patch } from './patch.ts';
import { jsonEqual, valueAtPointer } from './json-pointer.ts';
import { stringifyBody } from './raw-json.ts';
import type { RestClient } from './rest-client.ts';
import type { QueryParams } from './transport.ts';
import type { KubeObject, ObjectList, Scale, WatchEvent } from './types.ts';
import { readWatchEvents } from './watch-stream.ts';

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  signal?: AbortSignal;
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Server-side timeout: the apiserver ends the watch cleanly after this. */
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  signal?: AbortSignal;
}

export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take over conflicting fields. */
  force?: boolean;
}

export interface DeleteOptions {
  /** The delete applies only if the object still has this uid / resourceVersion (else 409). */
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  dryRun?: boolean;
  signal?: AbortSignal;
}

export class ResourceClient<T extends KubeObject> {
  readonly gvr: GroupVersionResource;
  private readonly rest: RestClient;

  constructor(rest: RestClient, gvr: GroupVersionResource) {
    this.rest = rest;
    this.gvr = gvr;
  }

  get(namespace: string | undefined, name: string, options: { signal?: AbortSignal } = {}): Promise<T> {
    return this.rest.request<T>({ method: 'GET', path: this.path(namespace, name), ...signalOf(options) });
  }

  /** The object, or undefined when the API has none of that name. */
  async find(namespace: string | undefined, name: string, options: { signal?: AbortSignal } = {}): Promise<T | undefined> {
    try {
      return await this.get(namespace, name, options);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** One page; pass `limit` and `continue` to page, or use listAll(). Namespace undefined = all. */
  list(options: ListOptions = {}): Promise<ObjectList<T>> {
    const query: QueryParams = {
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      limit: options.limit,
      continue: options.continue,
      resourceVersion: options.resourceVersion,
      resourceVersionMatch: options.resourceVersionMatch,
    };
    return this.rest.request<ObjectList<T>>({
      method: 'GET',
      path: resourcePath(this.gvr, options.namespace),
      query,
      ...signalOf(options),
    });
  }

  /**
   * The pages of one list, fetched one at a time as the caller consumes them, so a caller that
   * handles each page before asking for the next holds one page of raw objects, never the whole
   * list. Every page has the first page's resourceVersion (one snapshot); an expired continue
   * token throws GoneError.
   */
  async *listPages(options: Omit<ListOptions, 'continue'> = {}): AsyncGenerator<ObjectList<T>> {
    const limit = options.limit ?? 500;
    let cont: string | undefined;
    do {
      // A continued page names its snapshot through the token: resourceVersion(Match) must go.
      const page = await this.list({ ...options, limit, ...(cont ? { continue: cont, resourceVersion: undefined, resourceVersionMatch: undefined } : {}) });
      cont = page.metadata?.continue || undefined;
      yield page;
    } while (cont);
  }

  /** Follows `continue` tokens; resourceVersion of the result is the first page's (a snapshot). */
  async listAll(options: Omit<ListOptions, 'continue'> = {}): Promise<ObjectList<T>> {
    const items: T[] = [];
    let first: ObjectList<T> | undefined;
    for await (const page of this.listPages(options)) {
      first ??= page;
      items.push(...page.items);
    }
    return { ...first, metadata: { ...first?.metadata, continue: undefined }, items };
  }

  /** Streams watch events until the server ends the watch, the signal aborts or the stream breaks. */
  async *watch(options: WatchOptions = {}): AsyncGenerator<WatchEvent<T>> {
    const res = await this.rest.stream({
      method: 'GET',
      path: resourcePath(this.gvr, options.namespace),
      query: {
        watch: true,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        resourceVersion: options.resourceVersion,
        allowWatchBookmarks: options.allowWatchBookmarks,
        timeoutSeconds: options.timeoutSeconds,
      },
      ...signalOf(options),
    });
    yield* readWatchEvents<T>(res.chunks());
  }

  /** Creates the object in its metadata.namespace (or `namespace`); apiVersion/kind are filled in; RawJson values go verbatim. */
  create(obj: T, options: WriteOptions & { namespace?: string } = {}): Promise<T> {
    const namespace = options.namespace ?? obj.metadata?.namespace;
    const body = { apiVersion: apiVersionOf(this.gvr), kind: this.gvr.kind, ...obj };
    return this.rest.request<T>({
      method: 'POST',
      path: this.path(namespace),
      query: writeQuery(options),
      body: stringifyBody(body),
      contentType: 'application/json',
      ...signalOf(options),
    });
  }

  /** PUT; metadata.resourceVersion makes it conditional (409 when stale). */
  replace(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.put(obj, undefined, options);
  }

  /** PUT /status: only .status is taken from obj. */
  replaceStatus(obj: T, options: WriteOptions = {}): Promise<T> {
    return this.put(obj, 'status', options);
  }

  patch(namespace: string | undefined, name: string, patch: Patch, options: PatchOptions = {}): Promise<T> {
    return this.sendPatch<T>(namespace, name, undefined, patch, options);
  }

  /** Patches the status subresource, e.g. mergePatch({status: {...}}). */
  patchStatus(namespace: string | undefined, name: string, patch: Patch, options: PatchOptions = {}): Promise<T> {
    return this.sendPatch<T>(namespace, name, 'status', patch, options);
  }

  /** Patches another subresource that takes the object itself, e.g. a pod's `resize`. */
  patchSubresource(namespace: string | undefined, name: string, subresource: string, patch: Patch, options: PatchOptions = {}): Promise<T> {
    return this.sendPatch<T>(namespace, name, subresource, patch, options);
  }

  getScale(namespace: string | undefined, name: string, options: { signal?: AbortSignal } = {}): Promise<Scale> {
    return this.rest.request<Scale>({ method: 'GET', path: this.path(namespace, name, 'scale'), ...signalOf(options) });
  }

  patchScale(namespace: string | undefined, name: string, patch: Patch, options: PatchOptions = {}): Promise<Scale> {
    return this.sendPatch<Scale>(namespace, name, 'scale', patch, options);
  }

  /**
   * Deletes the object. Resolves with the object when deletion is pending (finalizers, grace) or
   * with a Success Status; NotFound throws (callers usually treat it as done).
   */
  delete(namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<T | Status> {
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      preconditions: options.preconditions,
      propagationPolicy: options.propagationPolicy,
      gracePeriodSeconds: options.gracePeriodSeconds,
      ...(options.dryRun ? { dryRun: ['All'] } : {}),
    };
    return this.rest.request<T | Status>({
      method: 'DELETE',
      path: this.path(namespace, name),
      body: JSON.stringify(body),
      contentType: 'application/json',
      ...signalOf(options),
    });
  }

  private path(namespace: string | undefined, name?: string, subresource?: string): string {
    if (this.gvr.namespaced && !namespace) {
      throw new Error(`${this.gvr.kind} is namespaced: a namespace is required`);
    }
    return resourcePath(this.gvr, namespace, name, subresource);
  }

  private put(obj: T, subresource: string | undefined, options: WriteOptions): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`${this.gvr.kind}: replace needs metadata.name`);
    return this.rest.request<T>({
      method: 'PUT',
      path: this.path(obj.metadata?.namespace, name, subresource),
      query: writeQuery(options),
      body: stringifyBody({ apiVersion: apiVersionOf(this.gvr), kind: this.gvr.kind, ...obj }),
      contentType: 'application/json',
      ...signalOf(options),
    });
  }

  private async sendPatch<R>(
    namespace: string | undefined,
    name: string,
    subresource: string | undefined,
    patch: Patch,
    options: PatchOptions,
  ): Promise<R> {
    if (patch.type === 'strategic' && !isBuiltIn(this.gvr)) {
      throw new Error(`${this.gvr.kind} is a custom resource: strategic merge patch is not supported, use a merge patch`);
    }
    if (patch.type === 'apply' && !options.fieldManager) {
      throw new Error('server-side apply needs options.fieldManager');
    }
    const force = patch.type === 'apply' ? (options.force ?? patch.force) : undefined;
    try {
      return await this.rest.request<R>({
        method: 'PATCH',
        path: this.path(namespace, name, subresource),
        query: { ...writeQuery(options), force },
        body: JSON.stringify(patch.body),
        contentType: PatchContentTypes[patch.type],
        ...signalOf(options),
      });
    } catch (err) {
      throw await this.conflictOnFailedTest(err, namespace, name, patch);
    }
  }

  /**
   * A failed JSON patch `test` is answered 422 with a generic message ("the server rejected our
   * request..."), indistinguishable from other invalid patches. When a value the patch tested
   * (the resourceVersion, an owner entry, a list) is no longer what the object holds, the patch
   * lost a race: report the Conflict it is, so callers handle every lost race one way (re-read,
   * recompute, retry) and none of them reports it as a failure.
   */
  private async conflictOnFailedTest(err: unknown, namespace: string | undefined, name: string, patch: Patch): Promise<unknown> {
    if (!(err instanceof InvalidError) || patch.type !== 'json') return err;
    const tests = patch.body.filter((op) => op.op === 'test');
    if (tests.length === 0) return err;
    const current = await this.get(namespace, name).catch(() => undefined);
    if (current !== undefined && tests.every((op) => jsonEqual(valueAtPointer(current, op.path), op.value))) return err;
    const tested = tests.map((op) => op.path).join(', ');
    return new ConflictError(
      409,
      'Conflict',
      `the tested value of ${tested} is no longer current (${err.request})`,
      { ...err.details, ...(name ? { name } : {}), kind: this.gvr.resource },
      err.request,
    );
  }
}

function writeQuery(options: WriteOptions): QueryParams {
  return {
    dryRun: options.dryRun ? 'All' : undefined,
    fieldManager: options.fieldManager,
    fieldValidation: options.fieldValidation,
  };
}

function signalOf(options: { signal?: AbortSignal }): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}
