// The shell's ImagePullJob CRD discovery: cached for minutes, shared by
// concurrent callers, and a single log line when the gate is on but the CRD is missing.
import { describe, expect, it } from 'vitest';
import { FakeClock, KubeClient, type HttpRequest, type HttpResponse, type Logger, type Transport } from '@cloneset-suite/kube-runtime';
import { CRD_RECHECK_MS, ImagePullJobSupport } from '../../src/reconciler/image-pull-jobs.ts';

const WITH_JOBS = { kind: 'APIResourceList', groupVersion: 'apps.kruise.io/v1alpha1', resources: [{ name: 'clonesets' }, { name: 'imagepulljobs' }] };
const WITHOUT_JOBS = { kind: 'APIResourceList', groupVersion: 'apps.kruise.io/v1alpha1', resources: [{ name: 'clonesets' }] };

class FakeDiscovery implements Transport {
  readonly host = 'fake:443';
  readonly paths: string[] = [];
  answer: { status: number; body: unknown } = { status: 200, body: WITHOUT_JOBS };
  send(req: HttpRequest): Promise<HttpResponse> {
    this.paths.push(`${req.method} ${req.path}`);
    const { status, body } = this.answer;
    const text = JSON.stringify(body);
    return Promise.resolve({
      status,
      header: () => null,
      text: () => Promise.resolve(text),
      chunks: () => {
        throw new Error('discovery is not streamed');
      },
    });
  }
}

interface Line {
  level: string;
  fields: Record<string, unknown>;
  msg: string;
}

function recordingLogger(lines: Line[]): Logger {
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => lines.push({ level, fields, msg });
  return { info: at('info'), warn: at('warn'), debug: at('debug'), error: at('error') } as unknown as Logger;
}

function setup(enabled = true) {
  const transport = new FakeDiscovery();
  const clock = new FakeClock(1_000);
  const lines: Line[] = [];
  const support = new ImagePullJobSupport({
    client: new KubeClient({ transport, qps: 0 }),
    clock,
    logger: recordingLogger(lines),
    enabled,
    controller: 'cloneset',
  });
  return { transport, clock, lines, support };
}

describe('ImagePullJobSupport', () => {
  it('gate off: never asks, never logs', async () => {
    const { transport, lines, support } = setup(false);
    expect(await support.available()).toBe(false);
    expect(transport.paths).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('CRD absent: off, logged once (structured, with the controller name), discovery cached', async () => {
    const { transport, clock, lines, support } = setup();
    for (let i = 0; i < 5; i++) expect(await support.available()).toBe(false);
    expect(transport.paths).toEqual(['GET /apis/apps.kruise.io/v1alpha1']);
    await clock.advance(CRD_RECHECK_MS);
    expect(await support.available()).toBe(false);
    expect(transport.paths).toHaveLength(2);
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields).toMatchObject({ controller: 'cloneset', featureGate: 'PreDownloadImageForInPlaceUpdate', crd: 'imagepulljobs.apps.kruise.io' });
    expect(warnings[0]?.msg).toMatch(/pre-download is off: the ImagePullJob CRD is not installed/);
  });

  it('group not served at all (404) counts as absent', async () => {
    const { transport, lines, support } = setup();
    transport.answer = { status: 404, body: { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 } };
    expect(await support.available()).toBe(false);
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it('concurrent callers share one discovery request', async () => {
    const { transport, support } = setup();
    transport.answer = { status: 200, body: WITH_JOBS };
    expect(await Promise.all([support.available(), support.available(), support.available()])).toEqual([true, true, true]);
    expect(transport.paths).toHaveLength(1);
  });

  it('picks up a CRD installed later (after the recheck interval), and logs the change', async () => {
    const { transport, clock, lines, support } = setup();
    expect(await support.available()).toBe(false);
    transport.answer = { status: 200, body: WITH_JOBS };
    await clock.advance(CRD_RECHECK_MS - 1);
    expect(await support.available()).toBe(false);
    await clock.advance(1);
    expect(await support.available()).toBe(true);
    expect(lines.map((l) => l.level)).toEqual(['warn', 'info']);
    // Removed again: one more warning.
    transport.answer = { status: 200, body: WITHOUT_JOBS };
    await clock.advance(CRD_RECHECK_MS);
    expect(await support.available()).toBe(false);
    expect(lines.map((l) => l.level)).toEqual(['warn', 'info', 'warn']);
  });

  it('a failed discovery keeps the last answer and is retried on the next call', async () => {
    const { transport, clock, lines, support } = setup();
    transport.answer = { status: 200, body: WITH_JOBS };
    expect(await support.available()).toBe(true);
    await clock.advance(CRD_RECHECK_MS);
    transport.answer = { status: 500, body: { kind: 'Status', status: 'Failure', code: 500, message: 'boom' } };
    expect(await support.available()).toBe(true);
    transport.answer = { status: 200, body: WITH_JOBS };
    expect(await support.available()).toBe(true);
    expect(transport.paths).toHaveLength(3);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('remembers clean-ups per CloneSet key, uid and revision', () => {
    const { support } = setup();
    expect(support.alreadyCleaned('ns/a', 'u1', 'a-1')).toBe(false);
    support.markCleaned('ns/a', 'u1', 'a-1');
    expect(support.alreadyCleaned('ns/a', 'u1', 'a-1')).toBe(true);
    expect(support.alreadyCleaned('ns/a', 'u1', 'a-2')).toBe(false);
    expect(support.alreadyCleaned('ns/a', 'u2', 'a-1')).toBe(false);
    support.forget('ns/a');
    expect(support.alreadyCleaned('ns/a', 'u1', 'a-1')).toBe(false);
  });
});
