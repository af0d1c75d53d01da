// A small in-memory stand-in for the apiserver's pod and PVC endpoints, for executor tests:
// each verb can be answered normally or replaced by a test's own behaviour.
import { FakeClock, silentLogger, type EventRecorder, type KubeClient, type KubeObject, type ScaleExpectations } from '@cloneset-suite/kube-runtime';
import type { ExecutionContext } from '../../src/reconciler/executor.ts';
import { NOW, cloneSet } from './fixtures.ts';

export interface RecordedEvent {
  type: string;
  reason: string;
  message: string;
  /** Kind/name of the object the Event is about. */
  regarding: string;
}

export interface FakeCall {
  resource: string;
  verb: 'create' | 'delete' | 'patch' | 'patchStatus' | 'patchSubresource' | 'get';
  name: string;
  /** patchSubresource: which one. */
  subresource?: string;
  body?: unknown;
  options?: unknown;
}

export type Override = (call: FakeCall, stored: Map<string, KubeObject>) => Promise<unknown> | undefined;

export interface FakeApi {
  client: KubeClient;
  calls: FakeCall[];
  /** Objects by `resource/name`. */
  stored: Map<string, KubeObject>;
  events: RecordedEvent[];
  recorder: EventRecorder;
}

/**
 * `override` answers a call itself by returning a promise, or leaves it to the store (undefined).
 * `maxConcurrentRequests` is what the client says its transport sends at once.
 */
export function fakeApi(override: Override = () => undefined, maxConcurrentRequests = Number.POSITIVE_INFINITY): FakeApi {
  const calls: FakeCall[] = [];
  const stored = new Map<string, KubeObject>();
  const events: RecordedEvent[] = [];
  let rv = 100;
  const resource = (gvr: { resource: string }) => {
    const run = (call: FakeCall, normal: () => unknown): Promise<unknown> => {
      calls.push(call);
      return override(call, stored) ?? Promise.resolve().then(normal);
    };
    const key = (name: string) => `${gvr.resource}/${name}`;
    return {
      create: (obj: KubeObject, options?: unknown) =>
        run({ resource: gvr.resource, verb: 'create', name: obj.metadata?.name ?? '', body: obj, options }, () => {
          const created = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++rv), uid: `uid-${obj.metadata?.name}` } };
          stored.set(key(obj.metadata?.name ?? ''), created);
          return created;
        }),
      delete: (_ns: string, name: string, options?: unknown) =>
        run({ resource: gvr.resource, verb: 'delete', name, options }, () => {
          stored.delete(key(name));
          return { kind: 'Status', status: 'Success' };
        }),
      patch: (_ns: string, name: string, body: unknown, options?: unknown) =>
        run({ resource: gvr.resource, verb: 'patch', name, body, options }, () => ({ metadata: { name, resourceVersion: String(++rv) } })),
      patchStatus: (_ns: string, name: string, body: unknown, options?: unknown) =>
        run({ resource: gvr.resource, verb: 'patchStatus', name, body, options }, () => ({ metadata: { name, resourceVersion: String(++rv) } })),
      patchSubresource: (_ns: string, name: string, subresource: string, body: unknown, options?: unknown) =>
        run({ resource: gvr.resource, verb: 'patchSubresource', subresource, name, body, options }, () => ({ metadata: { name, resourceVersion: String(++rv) } })),
      get: (_ns: string, name: string, options?: unknown) => run({ resource: gvr.resource, verb: 'get', name, options }, () => stored.get(key(name))),
    };
  };
  const recorder = {
    event: (obj: KubeObject, type: string, reason: string, _action: string, message: string) => events.push({ type, reason, message, regarding: `${obj.kind ?? ''}/${obj.metadata?.name ?? ''}` }),
  } as unknown as EventRecorder;
  return { client: { resource, maxConcurrentRequests } as unknown as KubeClient, calls, stored, events, recorder };
}

export function executionContext(api: FakeApi, expectations: ScaleExpectations, extra: Partial<ExecutionContext> = {}): ExecutionContext {
  return {
    client: api.client,
    clock: new FakeClock(NOW),
    recorder: api.recorder,
    expectations,
    logger: silentLogger(),
    key: 'ns/cs',
    cs: cloneSet({ replicas: 1 }) as ExecutionContext['cs'],
    podsByName: new Map(),
    signal: new AbortController().signal,
    ...extra,
  };
}
