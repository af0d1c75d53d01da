// The apiserver's own request counts (apiserver_request_total from its /metrics) over a timed
// run: every client's pod writes, including the simulated kubelet's and the ones the apiserver
// refused, which no controller-side counter sees.
import { kubectl, usingExternalCluster } from '@cloneset-suite/local-cluster';

/** "PATCH pods/status 409" -> count, summed over the metric's other labels. */
export type RequestCounts = Record<string, number>;

const LINE = /^apiserver_request_total\{([^}]*)\} (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** Parses the Prometheus text exposition's apiserver_request_total samples. */
export function parseRequestCounts(text: string): RequestCounts {
  const counts: RequestCounts = {};
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of m[1]!.matchAll(LABEL)) labels[k!] = v!;
    const resource = labels.subresource ? `${labels.resource}/${labels.subresource}` : (labels.resource ?? '');
    const key = `${labels.verb} ${resource} ${labels.code}`;
    counts[key] = (counts[key] ?? 0) + Number(m[2]);
  }
  return counts;
}

/** The apiserver's counts now; empty on a cluster the bench did not start (its metrics may be closed to us). */
export async function apiserverRequestCounts(): Promise<RequestCounts> {
  if (usingExternalCluster()) return {};
  return parseRequestCounts(await kubectl(['get', '--raw', '/metrics']));
}

export function countsBetween(before: RequestCounts, after: RequestCounts): RequestCounts {
  const diff: RequestCounts = {};
  for (const [key, n] of Object.entries(after)) {
    const d = n - (before[key] ?? 0);
    if (d > 0) diff[key] = d;
  }
  return diff;
}

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY']);

/**
 * Writes to pods (any subresource, any outcome) and, of those, the refused ones: 409 (a
 * resourceVersion precondition lost) and 422 (a JSON patch whose `test` failed, as the simulated
 * kubelet's replay of a stage on a version older than its own write).
 */
export function podWrites(counts: RequestCounts): { total: number; refused: number } {
  let total = 0;
  let refused = 0;
  for (const [key, n] of Object.entries(counts)) {
    const [verb, resource, code] = key.split(' ');
    if (!WRITE_VERBS.has(verb!) || !(resource === 'pods' || resource!.startsWith('pods/'))) continue;
    total += n;
    if (code === '409' || code === '422') refused += n;
  }
  return { total, refused };
}
