// The dashboard and the alerts read only series the manager exports: the manager runs (every
// controller, leader election, webhooks) with a CloneSet and a PodTransitionRule in its
// namespace, and every metric name a dashboard query or an alert expression reads must appear
// in its /metrics; so must the controllers' error and retry series on a healthy manager. A fresh
// manager in an empty namespace exports them all too, at 0 (panels show 0, not "No data").
import path from 'node:path';
import { createTestNamespace, eventually, kubectl, repoRoot } from '@cloneset-suite/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrds } from '../../src/local-install.ts';
import { ALERT_RULES } from '../../src/observability/alerts.ts';
import { dashboardQueries } from '../../src/observability/dashboard.ts';
import { metricNamesIn } from '../../src/observability/promql-names.ts';
import { startUrlModeManager, type UrlModeManager } from '../support/url-mode-manager.ts';

/** Metric names with at least one sample in a Prometheus text exposition. */
function exportedNames(body: string): Set<string> {
  return new Set(body.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => /^[a-zA-Z_:][\w:]*/.exec(l)![0]));
}

describe('observability: dashboard and alerts against a running manager', () => {
  let ns: { name: string; remove: () => Promise<void> };
  let manager: UrlModeManager | undefined;
  let metricsPort: number;

  beforeAll(async () => {
    await installCrds((a, input) => kubectl(a, input), path.join(repoRoot, 'crds'));
    ns = await createTestNamespace('obs');
    manager = await startUrlModeManager(ns.name, 'obs-test');
    metricsPort = manager.metricsPort;
    // Applied through the webhooks once the manager injected their caBundle.
    const apply = (manifest: object) =>
      eventually('applied through the webhooks', async () => {
        await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify(manifest));
        return true;
      }, { timeoutMs: 60_000 });
    await apply({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        // Controlled by PodOpsLifecycle: the lifecycle controller writes its phase label.
        template: { metadata: { labels: { app: 'web', 'kusionstack.io/control': 'true' } }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } },
      },
    });
    await apply({
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'gate' },
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'ready-label', labelCheck: { requires: { matchLabels: { ready: 'yes' } } } }] },
    });
  }, 120_000);

  afterAll(async () => {
    await manager?.stop();
    await ns?.remove();
  });

  it('exports every series the Grafana dashboard and the PrometheusRule query', async () => {
    const referenced = new Set([...dashboardQueries(), ...ALERT_RULES.map((r) => r.expr)].flatMap(metricNamesIn));
    // The CloneSet's pod came up and the leader was elected: every referenced family has samples.
    const missing = await eventually('every referenced series exported', async () => {
      const body = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text().catch(() => '');
      const exported = exportedNames(body);
      const absent = [...referenced].filter((n) => !exported.has(n));
      return absent.length === 0 ? absent : undefined;
    }, { timeoutMs: 60_000 }).catch(async () => {
      const exported = exportedNames(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text());
      return [...referenced].filter((n) => !exported.has(n));
    });
    expect(missing).toEqual([]);
  });

  it('reports the CloneSet rollout, its pods and the rule from the caches, and healthy controllers have error series at 0', async () => {
    const body = await eventually('the CloneSet series', async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return text.includes(`cloneset_suite_cloneset_replicas{namespace="${ns.name}",cloneset="web",state="current"} 1`) ? text : undefined;
    }, { timeoutMs: 60_000 });
    expect(body).toContain(`cloneset_suite_cloneset_replicas{namespace="${ns.name}",cloneset="web",state="desired"} 1`);
    expect(body).toContain(`cloneset_suite_cloneset_pods_created_total{namespace="${ns.name}",cloneset="web"} 1`);
    expect(body).toContain(`cloneset_suite_cloneset_progress_deadline_exceeded{namespace="${ns.name}",cloneset="web"} 0`);
    expect(body).toMatch(new RegExp(`cloneset_suite_transition_rule_pods\\{namespace="${ns.name}",podtransitionrule="gate",decision="rejected"\\} \\d`));
    await eventually('the pod counted in its lifecycle phase', async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return /cloneset_suite_podopslifecycle_pods\{phase="(ServiceAvailable|Unavailable)"\} 1/.test(text);
    }, { timeoutMs: 30_000 });
    for (const controller of ['cloneset', 'podopslifecycle', 'podtransitionrule']) {
      expect(body).toContain(`workqueue_retries_total{name="${controller}",controller="${controller}"}`);
      expect(body).toContain(`controller_runtime_reconcile_errors_total{controller="${controller}"}`);
    }
  });
});

describe('observability: a fresh manager with nothing to manage', () => {
  let ns: { name: string; remove: () => Promise<void> };
  let manager: UrlModeManager | undefined;

  beforeAll(async () => {
    await installCrds((a, input) => kubectl(a, input), path.join(repoRoot, 'crds'));
    ns = await createTestNamespace('obs-empty');
    manager = await startUrlModeManager(ns.name, 'obs-empty');
  }, 120_000);

  afterAll(async () => {
    await manager?.stop();
    await ns?.remove();
  });

  it('exports every series the dashboard and the PrometheusRule query from its start, with no CloneSet and no PodTransitionRule', async () => {
    const referenced = new Set([...dashboardQueries(), ...ALERT_RULES.map((r) => r.expr)].flatMap(metricNamesIn));
    const scrape = async () => (await fetch(`http://127.0.0.1:${manager!.metricsPort}/metrics`)).text().catch(() => '');
    // Once it leads (its controllers run), nothing more is going to happen in an empty namespace.
    await eventually('the manager leads', async () => /^leader_election_master_status\{[^}]*\} 1$/m.test(await scrape()), { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 2_000));
    const body = await scrape();
    expect([...referenced].filter((n) => !exportedNames(body).has(n))).toEqual([]);
    expect(body).toContain('cloneset_suite_transition_rule_pods{decision="rejected"} 0');
    expect(body).toContain('cloneset_suite_transition_rule_decisions_total{decision="passed"} 0');
    expect(body).toContain('cloneset_suite_cloneset_replicas{state="unavailable"} 0');
  });
});
