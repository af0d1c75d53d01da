// The PrometheusRule alerts for the manager, as data (deploy/prometheus/ and the Helm chart hold
// the rendered rule). Every series an expression reads is checked against a running manager.

export interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: 'warning' | 'critical' };
  annotations: { summary: string; description: string };
}

/** Lifecycle phases a pod passes through while operated (not the resting online/offline ones). */
const OPERATING_PHASES = 'PreCheck|Preparing|Operating|Operated|PostCheck|Completing';

export const ALERT_RULES: readonly AlertRule[] = [
  {
    alert: 'CloneSetRolloutStalled',
    expr: 'max by (namespace, cloneset) (cloneset_suite_cloneset_progress_deadline_exceeded) == 1',
    for: '1m',
    labels: { severity: 'warning' },
    annotations: {
      summary: 'CloneSet {{ $labels.namespace }}/{{ $labels.cloneset }} has not progressed for progressDeadlineSeconds',
      description:
        'Its Progressing condition is False with reason ProgressDeadlineExceeded. `kubectl cloneset rollout status clone/{{ $labels.cloneset }} -n {{ $labels.namespace }}` and `kubectl cloneset pods clone/{{ $labels.cloneset }} -n {{ $labels.namespace }}` show which pods hold it.',
    },
  },
  {
    alert: 'CloneSetSuiteReconcileErrors',
    expr: 'sum by (controller) (rate(controller_runtime_reconcile_errors_total[5m])) > 0',
    for: '15m',
    labels: { severity: 'warning' },
    annotations: {
      summary: 'The {{ $labels.controller }} controller has been failing reconciles for 15 minutes',
      description: 'Reconciles are retried with backoff; the manager log (level error, "reconciler error") and Warning Events on the objects say why.',
    },
  },
  {
    alert: 'PodStuckInLifecyclePhase',
    expr: `max by (phase) (cloneset_suite_podopslifecycle_phase_oldest_seconds{phase=~"${OPERATING_PHASES}"}) > 1800`,
    for: '5m',
    labels: { severity: 'warning' },
    annotations: {
      summary: 'A pod has been in PodOpsLifecycle phase {{ $labels.phase }} for over 30 minutes',
      description:
        '`kubectl get pods -A -l podopslifecycle.cloneset-suite.io/phase={{ $labels.phase }}` lists the pods; `kubectl cloneset pods` shows the PodTransitionRule holding one and why.',
    },
  },
  {
    alert: 'TransitionRuleWebhookFailing',
    expr:
      'sum(rate(cloneset_suite_transition_rule_webhook_call_duration_seconds_count{outcome="error"}[5m])) / sum(rate(cloneset_suite_transition_rule_webhook_call_duration_seconds_count[5m])) > 0.1',
    for: '10m',
    labels: { severity: 'warning' },
    annotations: {
      summary: 'More than 10% of PodTransitionRule webhook calls fail',
      description: 'Pods behind a failing webhook rule wait in PreCheck/PostCheck (unless failurePolicy is Ignore). Look for WebhookFailureIgnored and RuleError Events on the PodTransitionRules.',
    },
  },
  {
    alert: 'CloneSetSuiteAdmissionWebhookSlow',
    expr: 'histogram_quantile(0.99, sum by (le, webhook) (rate(controller_runtime_webhook_latency_seconds_bucket[5m]))) > 1',
    for: '10m',
    labels: { severity: 'warning' },
    annotations: {
      summary: 'Admission webhook {{ $labels.webhook }} answers slower than 1s at p99',
      description: 'The apiserver times admission calls out (10s by default); slow answers delay every CloneSet and pod write.',
    },
  },
  {
    alert: 'CloneSetSuiteAdmissionWebhookErrors',
    expr: 'sum by (webhook) (rate(controller_runtime_webhook_requests_total{code=~"5.."}[5m])) > 0',
    for: '10m',
    labels: { severity: 'warning' },
    annotations: {
      summary: 'Admission webhook {{ $labels.webhook }} answers with server errors',
      description: 'The manager log has the failing requests ("webhook ... failed").',
    },
  },
  {
    alert: 'CloneSetSuiteNoLeader',
    expr: 'max by (name) (leader_election_master_status) < 1',
    for: '2m',
    labels: { severity: 'critical' },
    annotations: {
      summary: 'No controller-manager replica holds the lease {{ $labels.name }}',
      description: 'Leadership was lost and not taken back: no controller runs. Check the manager pods and the Lease in the manager namespace.',
    },
  },
];

export function prometheusRule(namespace: string, labels: Record<string, string>): object {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'cloneset-suite', namespace, labels },
    spec: { groups: [{ name: 'cloneset-suite', rules: ALERT_RULES }] },
  };
}
