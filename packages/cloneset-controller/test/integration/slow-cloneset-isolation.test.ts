// On the cluster: a CloneSet whose pod creates are slowed by a third-party pod
// webhook (a loopback mutating webhook that sleeps before allowing) holds one worker, not the
// controller: a healthy CloneSet beside it scales out in about its normal time. Its latency is
// measured alone, then while the slow CloneSet's creates are in flight.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { DEFAULT_MAX_CONCURRENT_RECONCILES } from '@cloneset-suite/kube-runtime';
import { makeCertificates } from '../../../transition-rule/test/support/certificates.ts';
import { installCrds, startController, withNamespace, type RunningController } from './harness.ts';
import { apply, cloneSet, getCloneSet, scale } from './support.ts';

/** How long the webhook holds each slow pod create (below its 10 s timeout). */
const SLOW_CREATE_MS = 5_000;
/** Slow-start batches 1, 2, 4, 8: four batches of SLOW_CREATE_MS each in the slow reconcile. */
const SLOW_REPLICAS = 15;

/** A mutating webhook that allows every pod, after SLOW_CREATE_MS; counts calls in flight. */
class SleepyWebhook {
  inFlight = 0;
  calls = 0;
  private server: Server | undefined;
  url = '';

  async listen(cert: string, key: string): Promise<void> {
    this.server = createServer({ cert, key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request?: { uid?: string; dryRun?: boolean } };
        this.calls++;
        const answer = (): void => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request?.uid, allowed: true } }));
        };
        if (review.request?.dryRun) return answer();
        this.inFlight++;
        setTimeout(() => {
          this.inFlight--;
          answer();
        }, SLOW_CREATE_MS);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}/mutate`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('a CloneSet slowed by a pod webhook beside a healthy one', () => {
  let ns: string;
  let removeNs: () => Promise<void>;
  let controller: RunningController;
  const webhook = new SleepyWebhook();
  const configuration = `cs-sleepy-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    await installCrds();
    ({ name: ns, remove: removeNs } = await withNamespace('cs-isolation'));
    const certs = makeCertificates();
    await webhook.listen(certs.certPem, certs.keyPem);
    await kubectl(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: configuration },
      webhooks: [{
        name: 'sleepy.cloneset-suite.test',
        clientConfig: { url: webhook.url, caBundle: certs.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        objectSelector: { matchLabels: { speed: 'slow' } },
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 10,
        failurePolicy: 'Ignore',
      }],
    }));
    // The apiserver calls a new configuration only once it has loaded it: dry runs until it does.
    const probe = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probe', labels: { speed: 'slow' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await eventually('the sleepy webhook is called', async () => {
      await kubectl(['create', '-n', ns, '--dry-run=server', '-f', '-'], probe);
      return webhook.calls > 0;
    }, { timeoutMs: 30_000, intervalMs: 500 });
    // The shipped worker count: what the test is about.
    controller = startController(ns, { maxConcurrentReconciles: DEFAULT_MAX_CONCURRENT_RECONCILES });
  });
  afterAll(async () => {
    await kubectl(['delete', 'mutatingwebhookconfiguration', configuration, '--ignore-not-found']).catch(() => undefined);
    await controller?.stop();
    await webhook.close();
    await removeNs?.();
  });

  it('the healthy CloneSet scales out beside it within max(2x, +3 s) of its latency alone', async () => {
    await apply(ns, cloneSet('healthy', 1));
    const readyAt = (n: number) =>
      eventually(`healthy at ${n} ready`, async () => (await getCloneSet(ns, 'healthy'))?.status?.readyReplicas === n, { timeoutMs: 90_000, intervalMs: 100 });
    await readyAt(1);
    let replicas = 1;
    const scaleOutLatency = async (): Promise<number> => {
      const started = Date.now();
      await scale(ns, 'healthy', ++replicas);
      await readyAt(replicas);
      return Date.now() - started;
    };
    const alone = [await scaleOutLatency(), await scaleOutLatency()];

    await apply(ns, cloneSet('slow', SLOW_REPLICAS, {}, { labels: { speed: 'slow' } }));
    await eventually('the slow CloneSet has creates in flight', () => Promise.resolve(webhook.inFlight > 0), { timeoutMs: 30_000, intervalMs: 100 });
    const beside = [await scaleOutLatency(), await scaleOutLatency()];
    const stillSlow = webhook.inFlight > 0;

    console.log(`[isolation] healthy scale-out latency alone ${alone.join(', ')} ms; beside a CloneSet whose creates take ${SLOW_CREATE_MS} ms each: ${beside.join(', ')} ms`);
    expect(mean(beside)).toBeLessThanOrEqual(Math.max(2 * mean(alone), mean(alone) + 3_000));
    // The slow CloneSet was still creating throughout: the measurement is of "beside", not "after".
    expect(stillSlow).toBe(true);
  });
});
