// Where PodTransitionRule webhooks may point, refused at admission through the real apiserver and
// the manager's webhook (URL mode): the allow-list compared on the parsed origin (also for
// poll.url), user information, link-local and cloud-metadata addresses named literally, and the
// poll timeout's upper bound.
import path from 'node:path';
import { createTestNamespace, eventually, kubectl, repoRoot } from '@cloneset-suite/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrds } from '../../src/local-install.ts';
import { startUrlModeManager, type UrlModeManager } from '../support/url-mode-manager.ts';

describe('PodTransitionRule admission: where webhooks may point', () => {
  let ns: { name: string; remove: () => Promise<void> };
  let manager: UrlModeManager | undefined;

  const rule = (name: string, url: string, poll?: Record<string, unknown>) =>
    JSON.stringify({
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name },
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'hook', webhook: { clientConfig: { url, poll } } }] },
    });
  const apply = (manifest: string) =>
    kubectl(['apply', '-n', ns.name, '-f', '-'], manifest).then(
      () => '',
      (e: unknown) => (e as Error).message,
    );

  beforeAll(async () => {
    await installCrds((a, input) => kubectl(a, input), path.join(repoRoot, 'crds'));
    ns = await createTestNamespace('ptr-admit');
    manager = await startUrlModeManager(ns.name, 'ptr-admit', ['--transition-rule-webhook-allowed-prefixes=https://hooks.example.com,http://10.0.0.7:8080/team-a/']);
    // The manager serves its webhooks once it has injected their caBundle.
    await eventually('an allowed rule is admitted', async () => (await apply(rule('allowed', 'https://hooks.example.com/check'))) === '', { timeoutMs: 60_000 });
  }, 120_000);

  afterAll(async () => {
    await manager?.stop();
    await ns?.remove();
  });

  it('compares URLs on their parsed origin, url and poll.url alike', async () => {
    expect(await apply(rule('port', 'https://hooks.example.com:443/check', { url: 'http://10.0.0.7:8080/team-a/result' }))).toBe('');
    const longer = await apply(rule('longer', 'https://hooks.example.com.evil.net/check'));
    expect(longer).toMatch(/Forbidden.*spec\.rules\[0\]\.webhook\.clientConfig\.url/s);
    const poll = await apply(rule('poll', 'https://hooks.example.com/check', { url: 'http://10.0.0.7:8080/team-b/result' }));
    expect(poll).toMatch(/spec\.rules\[0\]\.webhook\.clientConfig\.poll\.url/);
    expect(poll).not.toMatch(/clientConfig\.url/);
  });

  it('refuses user information, which would hide the real host behind an allowed one', async () => {
    const err = await apply(rule('userinfo', 'https://hooks.example.com@169.254.169.254/'));
    expect(err).toMatch(/spec\.rules\[0\]\.webhook\.clientConfig\.url.*user information is not permitted in the URL/s);
  });

  it('refuses a link-local, cloud-metadata or unspecified address named literally, even one the allow-list would pass', async () => {
    await manager!.stop();
    manager = await startUrlModeManager(ns.name, 'ptr-admit-open');
    await eventually('the new manager serves', async () => (await apply(rule('open', 'https://anywhere.example/check'))) === '', { timeoutMs: 60_000 });
    for (const [url, cls] of [
      ['http://169.254.169.254/latest/meta-data', 'link-local'],
      ['http://[fd00:ec2::254]/', 'link-local'],
      ['http://2852039166/', 'link-local'],
      ['http://100.100.100.200/latest/meta-data', 'cloud-metadata'],
      ['http://168.63.129.16/', 'cloud-metadata'],
      ['http://0.0.0.0/', 'unspecified'],
    ]) {
      const err = await apply(rule('metadata', 'https://anywhere.example/check', { url }));
      expect(err).toMatch(new RegExp(`spec\\.rules\\[0\\]\\.webhook\\.clientConfig\\.poll\\.url.*is a ${cls} address, refused unless --transition-rule-webhook-allow-addresses lists ${cls}`, 's'));
    }
  });

  it('refuses a poll timeout over 24 h', async () => {
    const err = await apply(rule('forever', 'https://hooks.example.com/check', { url: 'https://hooks.example.com/result', timeoutSeconds: 86_401 }));
    expect(err).toMatch(/spec\.rules\[0\]\.webhook\.clientConfig\.poll\.timeoutSeconds.*86400/s);
  });
});
