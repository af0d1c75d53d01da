// Security: the manager runs with the generated RBAC only (a ServiceAccount token
// bound to rbacObjects(), the same rules deploy/ ships): a scale and a rollout complete with no
// request refused (403 counted on its /metrics), and the account cannot do what it was never
// granted. deploy/ grants no wildcard and reaches secrets only through a Role in the manager's own
// namespace. The webhook server refuses a body over the limit (413) and malformed JSON (400)
// without falling over (the next AdmissionReview is answered), answers fast-check generated garbage
// (200 bodies in `npm test`, 2000 in `npm run test:chaos`; CHAOS_SEED replays) with 4xx only,
// refuses TLS 1.0/1.1 and accepts
// 1.2/1.3. Every outbound HTTP client of the shipped code is known and gives up on a server that
// never answers, within its configured timeout.
// CHAOS_BREAK=rbac (pod creation left out of the ClusterRole) and CHAOS_BREAK=body-limit (the
// limit raised above what is sent) show the first two fail.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { connect as tlsConnect, createServer as createTlsServer, type SecureVersion } from 'node:tls';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseAllDocuments } from 'yaml';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, rbacObjects, type PolicyRule } from '@cloneset-suite/controller-manager';
import { KubeConfigTransport, RestClient, loadKubeConfig, mergePatch } from '@cloneset-suite/kube-runtime';
import { getJson, kubectl, repoRoot } from '@cloneset-suite/local-cluster';
import { DEFAULT_WEBHOOK_TIMEOUT_MS, WebhookClient } from '@cloneset-suite/transition-rule';
import { sumSamples } from '../src/chaos/metrics.ts';
import { chaosLong, chaosSeed } from '../src/chaos/seeded.ts';
import { cloneSetsOf, observerClient } from './chaos/cluster-client.ts';
import { breaking, startChaosEnvironment, type ChaosEnvironment } from './chaos/manager-process.ts';
import { applyObject, chaosCloneSet, setImage, waitForRollout } from './chaos/rollout.ts';

const client = observerClient();
/** The manager runs with --webhook-max-body-size=1Mi (the default 6Mi behaves alike; 1Mi keeps the test light). */
const BODY_LIMIT_BYTES = 1024 * 1024;
const GARBAGE_BODIES = chaosLong() ? 2000 : 200;
const seed = chaosSeed();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'chaos-security-'));

type Rbac = { kind: string; metadata: { name: string; namespace?: string }; rules?: PolicyRule[] };

/** A kubeconfig for the ServiceAccount: the suite's cluster (server, CA), the account's token. */
async function serviceAccountKubeconfig(namespace: string, account: string): Promise<string> {
  const token = (await kubectl(['create', 'token', account, '-n', namespace, '--duration=2h'])).trim();
  const admin = JSON.parse(await kubectl(['config', 'view', '--raw', '--minify', '--flatten', '-o', 'json'])) as { clusters: { name: string; cluster: unknown }[] };
  const cluster = admin.clusters[0]!;
  const file = path.join(tmp, `${account}.kubeconfig`);
  writeFileSync(file, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [cluster],
    users: [{ name: account, user: { token } }],
    contexts: [{ name: account, context: { cluster: cluster.name, user: account, namespace } }],
    'current-context': account,
  }));
  return file;
}

const canI = async (namespace: string, account: string, ...args: string[]): Promise<boolean> =>
  (await kubectl(['auth', 'can-i', ...args, `--as=system:serviceaccount:${namespace}:${account}`]).catch((err: Error) => err.message)).trim().endsWith('yes');

describe('security', () => {
  let env: ChaosEnvironment;
  let ns: string;
  let account = '';
  let rbac: Rbac[] = [];

  beforeAll(async () => {
    env = await startChaosEnvironment(
      'chaos-sec',
      { extraArgs: [`--webhook-max-body-size=${breaking('body-limit') ? '16Mi' : '1Mi'}`] },
      async (namespace, name) => {
        account = name;
        await kubectl(['create', 'serviceaccount', name, '-n', namespace]);
        rbac = rbacObjects({ namespace, name, names: { leaseName: name, secretName: `${name}-certs`, webhookConfigurationName: name } }) as Rbac[];
        if (breaking('rbac')) {
          const role = rbac.find((o) => o.kind === 'ClusterRole')!;
          role.rules = role.rules!.map((r) => (r.resources.includes('pods') ? { ...r, verbs: r.verbs.filter((v) => v !== 'create') } : r));
        }
        await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rbac }));
        return { kubeconfig: await serviceAccountKubeconfig(namespace, name) };
      },
    );
    ns = env.namespace;
  });

  afterAll(async () => {
    await env?.teardown();
    if (account) await kubectl(['delete', 'clusterrole,clusterrolebinding', account, `${account}-certificates`, '--ignore-not-found']).catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  });

  describe('RBAC', () => {
    it('the manager, with only the generated RBAC, scales and rolls out a CloneSet with no request refused', async () => {
      await applyObject(ns, chaosCloneSet({ name: 'rbac', replicas: 3, strategy: 'InPlaceIfPossible', maxSurge: 1, maxUnavailable: 1, withPvcs: false }));
      await waitForRollout(client, ns, 'rbac', 90_000);
      await setImage(ns, 'rbac', 'nginx:2.0');
      await cloneSetsOf(client).patch(ns, 'rbac', mergePatch({ spec: { replicas: 2 } }));
      await waitForRollout(client, ns, 'rbac', 90_000).catch((err: unknown) => {
        const forbidden = env.manager.output().split('\n').filter((l) => /forbidden/i.test(l)).slice(-5);
        throw new Error(`${(err as Error).message}\nmanager lines saying forbidden:\n${forbidden.join('\n')}`, { cause: err });
      });
      const metrics = await env.manager.metrics();
      const refused = sumSamples(metrics, 'rest_client_requests_total', { code: '403' });
      const requests = sumSamples(metrics, 'rest_client_requests_total');
      console.log(`[chaos-security] manager as ServiceAccount ${account}: ${requests} requests, ${refused} answered 403`);
      expect(refused).toBe(0);
      expect(requests).toBeGreaterThan(0);
    });

    it('the account cannot do what it was not granted', async () => {
      expect(await canI(ns, account, 'create', 'pods', '-n', ns)).toBe(!breaking('rbac'));
      for (const denied of [
        ['list', 'secrets', '-n', ns],
        ['watch', 'secrets', '-n', ns],
        ['get', 'secrets', '-n', 'default'],
        ['get', 'secrets/other', '-n', ns],
        ['update', 'leases/other', '-n', ns],
        ['patch', 'validatingwebhookconfigurations/other'],
        ['delete', 'nodes'],
        ['*', '*', '-n', ns],
        ['escalate', 'clusterroles'],
      ]) {
        expect(await canI(ns, account, ...denied), `can ${denied.join(' ')}`).toBe(false);
      }
    });

    it('deploy/ grants no wildcard, and secrets only through the Role in the manager\'s own namespace', () => {
      const read = (file: string): Rbac[] =>
        parseAllDocuments(readFileSync(path.join(repoRoot, file), 'utf8').replaceAll('{{ .Release.Namespace }}', 'RELEASE-NAMESPACE')).map((d) => d.toJS() as Rbac);
      const deployNamespace = (read('deploy/kustomize/base/deployment.yaml')[0]!.metadata.namespace ?? '');
      for (const [file, namespace] of [['deploy/kustomize/base/rbac.yaml', deployNamespace], ['deploy/helm/cloneset-suite/templates/rbac.yaml', 'RELEASE-NAMESPACE']] as const) {
        const objects = read(file);
        const rules = objects.flatMap((o) => (o.rules ?? []).map((r) => ({ kind: o.kind, namespace: o.metadata.namespace, rule: r })));
        expect(rules.length, file).toBeGreaterThan(0);
        for (const { kind, namespace: ruleNamespace, rule } of rules) {
          const line = `${file} ${kind}: ${JSON.stringify(rule)}`;
          expect([...rule.apiGroups, ...rule.resources, ...rule.verbs, ...(rule.resourceNames ?? [])].some((x) => x.includes('*')), line).toBe(false);
          if (rule.resources.includes('secrets')) {
            expect(kind, line).toBe('Role');
            expect(ruleNamespace, line).toBe(namespace);
            // Reads and writes of its own named Secret only (create cannot be restricted by name).
            if (rule.verbs.some((v) => v !== 'create')) expect(rule.resourceNames ?? [], line).not.toHaveLength(0);
          }
        }
      }
    });
  });

  describe('webhook server', () => {
    let ca = '';
    let url = '';
    /** The status and body; a server that answers before reading an oversized body may then reset the socket, which is fine once it answered. */
    const post = (body: string): Promise<{ status: number; text: string }> =>
      new Promise((resolve, reject) => {
        let status = 0;
        const chunks: Buffer[] = [];
        const done = (): void => resolve({ status, text: Buffer.concat(chunks).toString('utf8') });
        const req = httpsRequest(url, { method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
          status = res.statusCode ?? 0;
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', done);
          res.on('error', done);
        });
        req.on('error', (err) => (status ? done() : reject(err)));
        req.end(body);
      });
    const review = (uid: string): string =>
      JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid, kind: { group: 'apps.kruise.io', version: 'v1alpha1', kind: 'CloneSet' }, resource: { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets' }, operation: 'DELETE', namespace: ns, name: 'x' } });

    beforeAll(async () => {
      const config = await getJson<{ webhooks: { clientConfig: { url: string; caBundle: string } }[] }>(['validatingwebhookconfiguration', account]);
      const hook = config!.webhooks.find((w) => w.clientConfig.url.includes('cloneset'))!;
      url = hook.clientConfig.url;
      ca = Buffer.from(hook.clientConfig.caBundle, 'base64').toString('utf8');
    });

    it('refuses a body over the limit with 413 and malformed JSON with 400, then answers the next AdmissionReview', async () => {
      const oversized = `{"pad":"${'x'.repeat(BODY_LIMIT_BYTES + 1024)}"}`;
      const outcomes = {
        oversized: (await post(oversized)).status,
        truncated: (await post('{"apiVersion": "admission.k8s.io/v1", "kind": ')).status,
        notJson: (await post('<AdmissionReview/>')).status,
        notAReview: (await post('[1,2,3]')).status,
      };
      const next = await post(review('after-garbage'));
      console.log(`[chaos-security] webhook answers: ${JSON.stringify(outcomes)}, then ${next.status} for a valid review`);
      expect(outcomes).toEqual({ oversized: 413, truncated: 400, notJson: expect.any(Number) as number, notAReview: 400 });
      expect(outcomes.notJson >= 400 && outcomes.notJson < 500).toBe(true);
      expect(next.status).toBe(200);
      expect((JSON.parse(next.text) as { response: { uid: string } }).response.uid).toBe('after-garbage');
      expect(env.manager.pid).toBeDefined();
      expect(env.manager.unexpectedExits).toEqual([]); // never exited (and was restarted) on its own
      expect(env.manager.starts).toBe(1);
    });

    it(`answers ${GARBAGE_BODIES} generated malformed bodies with 4xx and keeps serving`, async () => {
      const bodies = fc.sample(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.json().map((j) => j.slice(0, Math.max(1, j.length - 1))),
          fc.jsonValue().map((v) => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: v })),
        ),
        { numRuns: GARBAGE_BODIES, seed },
      );
      const statuses = new Map<number, number>();
      for (const body of bodies) {
        const { status } = await post(body);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      const next = await post(review('after-fuzz'));
      console.log(`[chaos-security] ${GARBAGE_BODIES} generated bodies (seed ${seed}): answers ${JSON.stringify(Object.fromEntries(statuses))}; then ${next.status}`);
      expect([...statuses.keys()].every((code) => code >= 400 && code < 500)).toBe(true);
      expect(next.status).toBe(200);
      expect(env.manager.starts).toBe(1);
    });

    /** Resolves with the negotiated protocol, or the error that ended the handshake. */
    const handshake = (port: number, min: SecureVersion, max: SecureVersion): Promise<string> =>
      new Promise((resolve) => {
        // SECLEVEL=0: let OpenSSL 3 even offer TLS 1.0/1.1, so a refusal is the server's.
        const socket = tlsConnect({ host: '127.0.0.1', port, minVersion: min, maxVersion: max, ciphers: 'DEFAULT@SECLEVEL=0', rejectUnauthorized: false }, () => {
          resolve(socket.getProtocol() ?? 'unknown');
          socket.end();
        });
        socket.on('error', (err: Error & { code?: string }) => resolve(`refused: ${err.code ?? err.message}`));
      });

    it('refuses TLS 1.0 and 1.1, accepts 1.2 and 1.3', async () => {
      const port = Number(new URL(url).port);
      const got = {
        tls10: await handshake(port, 'TLSv1', 'TLSv1'),
        tls11: await handshake(port, 'TLSv1.1', 'TLSv1.1'),
        tls12: await handshake(port, 'TLSv1.2', 'TLSv1.2'),
        tls13: await handshake(port, 'TLSv1.3', 'TLSv1.3'),
      };
      console.log(`[chaos-security] webhook TLS handshakes: ${JSON.stringify(got)}`);
      expect(got.tls10).toMatch(/^refused/);
      expect(got.tls11).toMatch(/^refused/);
      expect(got.tls12).toBe('TLSv1.2');
      expect(got.tls13).toBe('TLSv1.3');
    });

    it('the TLS probe can negotiate 1.0 and 1.1 with a server that allows them (so a refusal above is the webhook server\'s)', async () => {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(tmp, 'k.pem'), '-out', path.join(tmp, 'c.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
      const lax = createTlsServer({ key: readFileSync(path.join(tmp, 'k.pem')), cert: readFileSync(path.join(tmp, 'c.pem')), minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' }, (s) => s.end());
      await new Promise<void>((r) => lax.listen(0, '127.0.0.1', r));
      try {
        const port = (lax.address() as { port: number }).port;
        expect(await handshake(port, 'TLSv1', 'TLSv1')).toBe('TLSv1');
        expect(await handshake(port, 'TLSv1.1', 'TLSv1.1')).toBe('TLSv1.1');
      } finally {
        lax.close();
      }
    });
  });

  describe('outbound HTTP clients', () => {
    // Every shipped source file that can open an outbound connection, and what bounds it. A new
    // one fails the inventory until it is listed here with its timeout test.
    // The webhook client dials through its guarded connector (the address policy on the address dialled).
    const KNOWN_CLIENTS = ['packages/kube-runtime/src/client/transport.ts', 'packages/transition-rule/src/http/guarded-connector.ts', 'packages/transition-rule/src/http/webhook-client.ts'];
    const OUTBOUND = /^import (?!type\b).*from '(undici|node:http|node:https|node:http2|node:tls)'|[^.\w]fetch\(|\b(net|tls)\.connect\(|createConnection\(/m;

    const shippedSources = (): string[] => {
      const out: string[] = [];
      const walk = (dir: string): void => {
        for (const entry of readdirSync(dir)) {
          const full = path.join(dir, entry);
          if (statSync(full).isDirectory()) walk(full);
          else if (entry.endsWith('.ts') && !entry.endsWith('.test.ts')) out.push(path.relative(repoRoot, full));
        }
      };
      // local-cluster is the test harness (never in the manager image); the rest ships.
      for (const root of ['packages', 'apps']) for (const pkg of readdirSync(path.join(repoRoot, root))) if (pkg !== 'local-cluster') {
        const src = path.join(repoRoot, root, pkg, 'src');
        if (statSync(src, { throwIfNoEntry: false })?.isDirectory()) walk(src);
      }
      return out;
    };

    it('the inventory: only the apiserver transport and the transition-rule webhook client open connections', () => {
      const files = shippedSources();
      expect(files.length).toBeGreaterThan(50);
      const clients = files.filter((f) => OUTBOUND.test(readFileSync(path.join(repoRoot, f), 'utf8')));
      // The server side imports node:https only as a type; the webhook server is not a client.
      expect(clients.sort()).toEqual(KNOWN_CLIENTS);
    });

    let silent: NetServer;
    let silentPort = 0;
    const held: Socket[] = [];
    beforeAll(async () => {
      // Accepts connections and never answers.
      silent = createNetServer((s) => held.push(s));
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      silentPort = (silent.address() as { port: number }).port;
    });
    afterAll(() => {
      for (const s of held) s.destroy();
      silent?.close();
    });

    const settleTime = async (p: Promise<unknown>): Promise<{ ms: number; error: string }> => {
      const t = Date.now();
      const error = await p.then(() => 'answered', (err: Error) => err.message);
      return { ms: Date.now() - t, error };
    };

    it('a server that never answers holds a request with no timeout (so the checks below can fail)', async () => {
      const req = httpRequest(`http://127.0.0.1:${silentPort}/`, { agent: false });
      const pending = new Promise<string>((resolve) => {
        req.on('response', () => resolve('answered'));
        req.on('error', () => resolve('failed'));
      });
      req.end();
      const first = await Promise.race([pending, new Promise((r) => setTimeout(() => r('still waiting'), 1_500))]);
      req.destroy();
      expect(first).toBe('still waiting');
    });

    it('kube-runtime: a request to the apiserver gives up at its timeout; the manager sets a finite one', async () => {
      const file = path.join(tmp, 'silent.kubeconfig');
      writeFileSync(file, JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'silent', cluster: { server: `http://127.0.0.1:${silentPort}`, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'u', user: {} }],
        contexts: [{ name: 'silent', context: { cluster: 'silent', user: 'u' } }],
        'current-context': 'silent',
      }));
      const rest = new RestClient({ transport: new KubeConfigTransport(loadKubeConfig(file)), requestTimeoutMs: 500 });
      const { ms, error } = await settleTime(rest.request({ method: 'GET', path: '/api' }));
      expect(error).toMatch(/no answer within 500 ms/);
      expect(ms).toBeLessThan(3_000);
      const loaded = loadConfig({ argv: [], env: {}, knownControllers: [] });
      if (loaded.kind !== 'config') throw new Error('help?');
      expect(Number.isFinite(loaded.config.kubeApiRequestTimeoutMs) && loaded.config.kubeApiRequestTimeoutMs > 0).toBe(true);
    });

    it('transition-rule: a webhook call gives up at its timeout; the default and the manager\'s are finite', async () => {
      const webhook = new WebhookClient({ timeoutMs: 500, allowAddresses: ['loopback'] });
      try {
        const { ms, error } = await settleTime(webhook.post({ url: `http://127.0.0.1:${silentPort}/check`, namespace: 'e2e' }, { hello: 1 }));
        expect(error).toMatch(/timed out after 0.5s/);
        expect(ms).toBeLessThan(3_000);
      } finally {
        await webhook.close();
      }
      expect(Number.isFinite(DEFAULT_WEBHOOK_TIMEOUT_MS) && DEFAULT_WEBHOOK_TIMEOUT_MS > 0).toBe(true);
      const loaded = loadConfig({ argv: [], env: {}, knownControllers: [] });
      if (loaded.kind !== 'config') throw new Error('help?');
      expect(Number.isFinite(loaded.config.transitionRuleWebhookTimeoutMs) && loaded.config.transitionRuleWebhookTimeoutMs > 0).toBe(true);
    });
  });
});
