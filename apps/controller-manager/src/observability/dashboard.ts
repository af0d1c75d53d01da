// The Grafana dashboard for the manager, as data: deploy/grafana/ holds its JSON and the Helm
// chart ships it in a ConfigMap the Grafana sidecar picks up. Every series each query reads is
// checked against a running manager's /metrics (test/integration/observability.test.ts).
// Every replica exports the cache-derived series, so panels take max across replicas.

interface Query {
  expr: string;
  legend: string;
}

interface PanelSpec {
  title: string;
  description: string;
  unit?: string;
  queries: Query[];
}

const NS = 'namespace=~"$namespace"';

const ROWS: { title: string; panels: PanelSpec[] }[] = [
  {
    title: 'CloneSet rollouts',
    panels: [
      {
        title: 'Updated replicas / desired',
        description: 'Rollout progress per CloneSet: pods at updateRevision over spec.replicas.',
        unit: 'percentunit',
        queries: [
          {
            expr: `max by (namespace, cloneset) (cloneset_suite_cloneset_replicas{${NS},state="updated"}) / max by (namespace, cloneset) (cloneset_suite_cloneset_replicas{${NS},state="desired"} > 0)`,
            legend: '{{namespace}}/{{cloneset}}',
          },
        ],
      },
      {
        title: 'Replicas by state',
        description: 'desired, current, updated, ready, available, unavailable, updated_ready per CloneSet.',
        queries: [{ expr: `max by (namespace, cloneset, state) (cloneset_suite_cloneset_replicas{${NS}})`, legend: '{{namespace}}/{{cloneset}} {{state}}' }],
      },
      {
        title: 'Unavailable replicas',
        description: 'spec.replicas minus available replicas.',
        queries: [{ expr: `max by (namespace, cloneset) (cloneset_suite_cloneset_replicas{${NS},state="unavailable"})`, legend: '{{namespace}}/{{cloneset}}' }],
      },
      {
        title: 'Rollouts past progressDeadlineSeconds',
        description: 'CloneSets whose Progressing condition is False with reason ProgressDeadlineExceeded.',
        queries: [{ expr: `max by (namespace, cloneset) (cloneset_suite_cloneset_progress_deadline_exceeded{${NS}}) == 1`, legend: '{{namespace}}/{{cloneset}}' }],
      },
      {
        title: 'Pods created / deleted',
        description: 'Pods of each CloneSet appearing and going away (per second).',
        unit: 'ops',
        queries: [
          { expr: `max by (namespace, cloneset) (rate(cloneset_suite_cloneset_pods_created_total{${NS}}[5m]))`, legend: 'created {{namespace}}/{{cloneset}}' },
          { expr: `max by (namespace, cloneset) (rate(cloneset_suite_cloneset_pods_deleted_total{${NS}}[5m]))`, legend: 'deleted {{namespace}}/{{cloneset}}' },
        ],
      },
    ],
  },
  {
    title: 'PodOpsLifecycle and PodTransitionRules',
    panels: [
      {
        title: 'Pods per lifecycle phase',
        description: 'The podopslifecycle.cloneset-suite.io/phase label across managed pods.',
        queries: [{ expr: 'max by (phase) (cloneset_suite_podopslifecycle_pods)', legend: '{{phase}}' }],
      },
      {
        title: 'Longest time in a phase',
        description: 'How long the pod waiting longest in each phase has been there.',
        unit: 's',
        queries: [{ expr: 'max by (phase) (cloneset_suite_podopslifecycle_phase_oldest_seconds{phase!~"ServiceAvailable|Unavailable"})', legend: '{{phase}}' }],
      },
      {
        title: 'Time spent per phase (p90)',
        description: 'From the phase-duration histogram: pods leaving each phase in the last 10 minutes.',
        unit: 's',
        queries: [{ expr: 'histogram_quantile(0.9, sum by (le, phase) (rate(cloneset_suite_podopslifecycle_phase_duration_seconds_bucket[10m])))', legend: '{{phase}}' }],
      },
      {
        title: 'PodTransitionRule decisions',
        description: 'Pods in a stage per rule, passed or rejected (status.details).',
        queries: [{ expr: `max by (namespace, podtransitionrule, decision) (cloneset_suite_transition_rule_pods{${NS}})`, legend: '{{namespace}}/{{podtransitionrule}} {{decision}}' }],
      },
      {
        title: 'PodTransitionRule verdicts recorded',
        description: 'Per-pod verdicts written to status.details (new or flipped) per second, by outcome.',
        unit: 'ops',
        queries: [{ expr: `max by (namespace, podtransitionrule, decision) (rate(cloneset_suite_transition_rule_decisions_total{${NS}}[5m]))`, legend: '{{namespace}}/{{podtransitionrule}} {{decision}}' }],
      },
      {
        title: 'Transition-rule webhook calls',
        description: 'Calls to PodTransitionRule webhooks by method (post: check, get: poll) and outcome.',
        unit: 'ops',
        queries: [{ expr: 'sum by (method, outcome) (rate(cloneset_suite_transition_rule_webhook_call_duration_seconds_count[5m]))', legend: '{{method}} {{outcome}}' }],
      },
      {
        title: 'Transition-rule webhook latency (p99)',
        description: 'Duration of PodTransitionRule webhook calls.',
        unit: 's',
        queries: [{ expr: 'histogram_quantile(0.99, sum by (le, method) (rate(cloneset_suite_transition_rule_webhook_call_duration_seconds_bucket[5m])))', legend: '{{method}}' }],
      },
      {
        title: 'Traffic drain time (p50, p99)',
        description: 'From a controlled pod starting to drain (not Ready or terminating) to no EndpointSlice listing it as ready: what Preparing waits for behind a Service.',
        unit: 's',
        queries: [
          { expr: 'histogram_quantile(0.5, sum by (le) (rate(cloneset_suite_traffic_drain_seconds_bucket[10m])))', legend: 'p50' },
          { expr: 'histogram_quantile(0.99, sum by (le) (rate(cloneset_suite_traffic_drain_seconds_bucket[10m])))', legend: 'p99' },
        ],
      },
    ],
  },
  {
    title: 'Controllers',
    panels: [
      {
        title: 'Reconciles by result',
        description: 'controller_runtime_reconcile_total per controller and result.',
        unit: 'ops',
        queries: [{ expr: 'sum by (controller, result) (rate(controller_runtime_reconcile_total[5m]))', legend: '{{controller}} {{result}}' }],
      },
      {
        title: 'Reconcile errors',
        description: 'Failed reconciles per second; each is retried with backoff and usually leaves an Event.',
        unit: 'ops',
        queries: [{ expr: 'sum by (controller) (rate(controller_runtime_reconcile_errors_total[5m]))', legend: '{{controller}}' }],
      },
      {
        title: 'Reconcile duration (p99)',
        description: 'controller_runtime_reconcile_time_seconds.',
        unit: 's',
        queries: [{ expr: 'histogram_quantile(0.99, sum by (le, controller) (rate(controller_runtime_reconcile_time_seconds_bucket[5m])))', legend: '{{controller}}' }],
      },
      {
        title: 'Workqueue depth and retries',
        description: 'Keys waiting, and retries per second.',
        queries: [
          { expr: 'sum by (name) (workqueue_depth)', legend: 'depth {{name}}' },
          { expr: 'sum by (name) (rate(workqueue_retries_total[5m]))', legend: 'retries/s {{name}}' },
        ],
      },
      {
        title: 'Leader',
        description: '1 on the replica holding the lease.',
        queries: [{ expr: 'max by (name) (leader_election_master_status)', legend: '{{name}}' }],
      },
      {
        title: 'API requests by code',
        description: 'Requests to the apiserver per status code.',
        unit: 'ops',
        queries: [{ expr: 'sum by (code) (rate(rest_client_requests_total[5m]))', legend: '{{code}}' }],
      },
    ],
  },
  {
    title: 'Admission webhooks',
    panels: [
      {
        title: 'Admission requests by code',
        description: 'Requests the webhook server answered, per path and HTTP code.',
        unit: 'ops',
        queries: [{ expr: 'sum by (webhook, code) (rate(controller_runtime_webhook_requests_total[5m]))', legend: '{{webhook}} {{code}}' }],
      },
      {
        title: 'Admission latency (p99)',
        description: 'controller_runtime_webhook_latency_seconds per path.',
        unit: 's',
        queries: [{ expr: 'histogram_quantile(0.99, sum by (le, webhook) (rate(controller_runtime_webhook_latency_seconds_bucket[5m])))', legend: '{{webhook}}' }],
      },
    ],
  },
];

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

/** Every PromQL expression the dashboard evaluates (panels and template variables). */
export function dashboardQueries(): string[] {
  return [...ROWS.flatMap((r) => r.panels.flatMap((p) => p.queries.map((q) => q.expr))), NAMESPACE_VARIABLE_QUERY];
}

const NAMESPACE_VARIABLE_QUERY = 'cloneset_suite_cloneset_replicas';

export function grafanaDashboard(): object {
  const panels: object[] = [];
  let id = 1;
  let y = 0;
  for (const row of ROWS) {
    panels.push({ id: id++, type: 'row', title: row.title, collapsed: false, gridPos: { h: 1, w: 24, x: 0, y }, panels: [] });
    y += 1;
    row.panels.forEach((p, i) => {
      panels.push({
        id: id++,
        type: 'timeseries',
        title: p.title,
        description: p.description,
        datasource: DATASOURCE,
        gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: y + Math.floor(i / 2) * 8 },
        fieldConfig: { defaults: { unit: p.unit ?? 'short' }, overrides: [] },
        options: { legend: { displayMode: 'list', placement: 'bottom' }, tooltip: { mode: 'multi' } },
        targets: p.queries.map((q, k) => ({ datasource: DATASOURCE, expr: q.expr, legendFormat: q.legend, refId: String.fromCharCode(65 + k) })),
      });
    });
    y += Math.ceil(row.panels.length / 2) * 8;
  }
  return {
    uid: 'cloneset-suite',
    title: 'CloneSet suite',
    tags: ['cloneset-suite', 'kubernetes'],
    schemaVersion: 39,
    version: 1,
    editable: true,
    refresh: '30s',
    time: { from: 'now-3h', to: 'now' },
    timezone: 'browser',
    templating: {
      list: [
        { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus' },
        {
          name: 'namespace',
          label: 'Namespace',
          type: 'query',
          datasource: DATASOURCE,
          query: { query: `label_values(${NAMESPACE_VARIABLE_QUERY}, namespace)`, refId: 'namespace' },
          includeAll: true,
          multi: true,
          allValue: '.*',
          current: { text: 'All', value: '$__all' },
          refresh: 2,
        },
      ],
    },
    panels,
  };
}
