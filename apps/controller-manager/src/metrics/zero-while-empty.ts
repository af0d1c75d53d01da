// Series labelled per object (CloneSet, PodTransitionRule) have no sample while no such object
// exists, and a Grafana panel or an alert over them then shows "No data" instead of 0. While the
// cache holds none, these keep the series present at 0 with only their non-object labels.
import type { Counter, Gauge } from 'prom-client';

export function zeroWhileEmpty<T extends string>(metric: Counter<T> | Gauge<T>, labelSets: readonly Partial<Record<T, string>>[], empty: boolean): void {
  for (const labels of labelSets) {
    if (!empty) metric.remove(labels);
    else if ('set' in metric) metric.set(labels, 0);
    else metric.inc(labels, 0);
  }
}
