import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../src/deploy/render.ts';
import { ALERT_RULES } from '../../src/observability/alerts.ts';
import { dashboardQueries, grafanaDashboard } from '../../src/observability/dashboard.ts';
import { metricNamesIn } from '../../src/observability/promql-names.ts';

describe('metricNamesIn', () => {
  it.each([
    ['a bare selector', 'up', ['up']],
    ['matchers, ranges and grouping are not names', 'sum by (controller, result) (rate(controller_runtime_reconcile_total{result="error",x=~"a|b"}[5m]))', ['controller_runtime_reconcile_total']],
    [
      'both sides of a binary operator, numbers and keywords skipped',
      'max by (ns) (a_total{state="x"}) / on(ns) group_left max(b_seconds_bucket > 0) > 1.5e3 and bool c',
      ['a_total', 'b_seconds_bucket', 'c'],
    ],
    ['histogram_quantile with a quantile literal', 'histogram_quantile(0.99, sum by (le) (rate(h_bucket[5m])))', ['h_bucket']],
    ['strings that look like names are skipped', 'x{phase=~"PreCheck|Preparing"} offset 5m', ['x']],
    ['template variables are skipped', 'y{namespace=~"$namespace"} * $__interval', ['y']],
  ])('%s', (_name, expr, names) => {
    expect(metricNamesIn(expr)).toEqual(names);
  });
});

describe('dashboard and alerts', () => {
  it('query only the product and controller-runtime families (typos show up here before the cluster test)', () => {
    const names = [...dashboardQueries(), ...ALERT_RULES.map((r) => r.expr)].flatMap(metricNamesIn);
    expect(names.length).toBeGreaterThan(15);
    for (const n of names) expect(n).toMatch(/^(cloneset_suite_|controller_runtime_|workqueue_|rest_client_|leader_election_)/);
  });

  it('covers what the issue asks of alerts: stalled rollouts, reconcile errors, stuck pods, failing rule webhooks, webhook latency, leader lost', () => {
    const exprs = ALERT_RULES.map((r) => r.expr).join('\n');
    for (const series of [
      'cloneset_suite_cloneset_progress_deadline_exceeded',
      'controller_runtime_reconcile_errors_total',
      'cloneset_suite_podopslifecycle_phase_oldest_seconds',
      'cloneset_suite_transition_rule_webhook_call_duration_seconds_count',
      'controller_runtime_webhook_latency_seconds_bucket',
      'leader_election_master_status',
    ]) {
      expect(exprs).toContain(series);
    }
  });

  it('ships the generated dashboard in the chart and in deploy/grafana, with a panel per query', () => {
    const raw = (p: string) => JSON.parse(readFileSync(path.join(repoRoot, p), 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
    const inChart = raw('deploy/helm/cloneset-suite/files/grafana-dashboard.json');
    expect(raw('deploy/grafana/cloneset-suite-dashboard.json')).toEqual(grafanaDashboard());
    expect(inChart).toEqual(grafanaDashboard());
    const template = readFileSync(path.join(repoRoot, 'deploy/helm/cloneset-suite/templates/grafana-dashboard.yaml'), 'utf8');
    expect(template).toContain('.Files.Get "files/grafana-dashboard.json"');
    const values = parse(readFileSync(path.join(repoRoot, 'deploy/helm/cloneset-suite/values.yaml'), 'utf8')) as { grafanaDashboard: { label: string; labelValue: string } };
    expect(values.grafanaDashboard).toMatchObject({ label: 'grafana_dashboard', labelValue: '1' });
  });
});
