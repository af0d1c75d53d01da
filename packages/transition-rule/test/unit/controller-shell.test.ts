// The controller shell on an in-memory apiserver: what it does with the writes the apiserver
// refuses, and that it closes the webhook caller it was given when it stops.
import { afterEach, describe, expect, it } from 'vitest';
import { Manager, silentLogger, type KubeClient } from '@cloneset-suite/kube-runtime';
import { createTransitionRuleController } from '../../src/reconciler/controller.ts';
import type { WebhookCaller } from '../../src/http/webhook-client.ts';
import { FakeApiServer, apiStatus } from '../support/fake-apiserver.ts';
import { pod } from './fixtures.ts';

const rule = {
  apiVersion: 'apps.kusionstack.io/v1alpha1',
  kind: 'PodTransitionRule',
  metadata: { name: 'gate', namespace: 'ns', uid: 'u1', generation: 1, resourceVersion: '5', finalizers: ['finalizer.operating.kusionstack.io/protected'] },
  spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'ready', labelCheck: { requires: { matchLabels: { ready: 'true' } } } }] },
};

const closedCaller = (): WebhookCaller & { closed: number } => {
  const caller = {
    closed: 0,
    post: () => Promise.reject(new Error('unused')),
    get: () => Promise.reject(new Error('unused')),
    close: () => ((caller.closed += 1), Promise.resolve()),
  };
  return caller;
};

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function start(api: FakeApiServer, caller: WebhookCaller = closedCaller(), ownClient?: (m: Manager) => KubeClient) {
  const manager = new Manager({ transport: api, qps: 0, logger: silentLogger() });
  const ctl = createTransitionRuleController(manager, { caller, newTraceId: () => 'T', ...(ownClient ? { client: ownClient(manager) } : {}) });
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  const stop = async () => {
    abort.abort();
    await done;
  };
  stops.push(stop);
  return { manager, ctl, stop };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
const eventsWith = (api: FakeApiServer, reason: string) =>
  api.writesTo('POST', /\/events$/).map((w) => JSON.parse(w.body!) as { reason: string; note: string; regarding: { name: string } }).filter((e) => e.reason === reason);

describe('the controller shell', () => {
  it('writes through the client it is given (its own rate limit), not the manager\'s shared one', async () => {
    const api = new FakeApiServer();
    api.objects.set('podtransitionrules', [rule]);
    api.objects.set('pods', [pod('p1', { stage: 'PreCheck' })]);
    const calls: string[] = [];
    start(api, closedCaller(), (manager) => {
      const own = manager.clientWithLimits({ qps: 100, burst: 100, userAgentSuffix: 'podtransitionrule' });
      expect(own).not.toBe(manager.client);
      return new Proxy(own, {
        get(target, prop) {
          const value: unknown = Reflect.get(target, prop);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => (calls.push(String(prop)), (value as (...a: unknown[]) => unknown).apply(target, args));
        },
      });
    });
    await settle(1_500);
    // The status and the pod's detail annotation: every write of the controller went through it.
    const writes = api.writesTo('PATCH', /podtransitionrules\/gate\/status$|pods\/p1$/);
    expect(writes.length).toBeGreaterThanOrEqual(2);
    expect(calls.length).toBeGreaterThanOrEqual(writes.length);
  });

  it('a status write the apiserver refuses is not retried unchanged: one attempt, and an Event naming the rule and the reason', async () => {
    const api = new FakeApiServer();
    api.objects.set('podtransitionrules', [rule]);
    api.objects.set('pods', [pod('p1', { stage: 'PreCheck' })]);
    api.onWrite = (req) => (req.path.endsWith('/status') ? apiStatus(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728') : { body: req.body ? JSON.parse(req.body) : {} });
    start(api);
    await settle(2_000);
    expect(api.writesTo('PATCH', /podtransitionrules\/gate\/status$/)).toHaveLength(1);
    const events = eventsWith(api, 'StatusWriteRefused');
    expect(events).toHaveLength(1);
    expect(events[0]!.regarding.name).toBe('gate');
    expect(events[0]!.note).toMatch(/^the apiserver refused the status of PodTransitionRule ns\/gate: Request entity too large: limit is 3145728/);
    // The detail annotation is not written ahead of a status that was not saved.
    expect(api.writesTo('PATCH', /\/pods\/p1$/)).toHaveLength(0);
  });

  it('a detail annotation the apiserver refuses is not retried unchanged; other pods still get theirs', async () => {
    const api = new FakeApiServer();
    api.objects.set('podtransitionrules', [rule]);
    api.objects.set('pods', [pod('full', { stage: 'PreCheck' }), pod('fine', { stage: 'PreCheck' })]);
    api.onWrite = (req) =>
      req.path.endsWith('/pods/full')
        ? apiStatus(422, 'Invalid', 'Pod "full" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes')
        : // The status write answers the version the cache holds: no wait for the cache to catch up.
          { body: rule };
    start(api);
    await settle(2_000);
    expect(api.writesTo('PATCH', /\/pods\/full$/)).toHaveLength(1);
    expect(api.writesTo('PATCH', /\/pods\/fine$/)).toHaveLength(1);
    const events = eventsWith(api, 'DetailAnnotationRefused');
    expect(events).toHaveLength(1);
    expect(events[0]!.note).toMatch(/^the apiserver refused the detail annotation of pod ns\/full: Pod "full" is invalid: metadata.annotations: Too long/);
  });

  it('closes the webhook caller it was given when the manager stops', async () => {
    const api = new FakeApiServer();
    const caller = closedCaller();
    const { stop } = start(api, caller);
    await settle(100);
    expect(caller.closed).toBe(0);
    await stop();
    expect(caller.closed).toBe(1);
  });
});
