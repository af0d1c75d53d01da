// `plan`'s human form: the CloneSet's numbers, then "Next actions" (one row per pod or object:
// what and why), "Waiting for" (one line per wait), for a paused CloneSet what resuming would
// do, and the notes. A settled CloneSet gets one line saying so.
import type { ReportAction } from './plan-actions.ts';
import type { PassReport, PlanReport } from './plan-report.ts';
import { renderTable } from './table.ts';

const indent = (text: string, by: string): string =>
  text
    .split('\n')
    .map((l) => (l === '' ? l : by + l))
    .join('\n');

function actionRows(actions: readonly ReportAction[]): string[][] {
  return [['TARGET', 'ACTION', 'REVISION', 'WHY'], ...actions.map((a) => [a.pod ?? a.object ?? (a.action === 'create' ? '(new pod)' : '-'), a.action, a.revision ?? '-', a.reason])];
}

function passText(p: PassReport, by: string): string {
  const actions = p.actions.length === 0 ? `${by}Next actions: none\n` : `${by}Next actions:\n${indent(renderTable(actionRows(p.actions)), `${by}  `)}`;
  const rows = [...p.waits.map((w) => [w.kind, w.message]), ...p.errors.map((e) => ['error', e.message])];
  const waits = rows.length === 0 ? '' : `${by}Waiting for:\n${indent(renderTable(rows), `${by}  `)}`;
  return actions + waits;
}

function header(r: PlanReport): string {
  const c = r.cloneSet;
  const s = c.updateStrategy;
  const revisions = c.currentRevision === c.updateRevision ? `revision ${c.updateRevision}` : `update revision ${c.updateRevision}, current ${c.currentRevision}`;
  const byRevision = Object.entries(c.podsByRevision)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([rev, n]) => `${rev}: ${n}`)
    .join(', ');
  const strategy = [s.type, `partition ${s.partition}`, `maxUnavailable ${s.maxUnavailable}`, `maxSurge ${s.maxSurge}`, ...(c.minReadySeconds > 0 ? [`minReadySeconds ${c.minReadySeconds}`] : []), ...(s.paused ? ['paused'] : [])];
  return (
    `clone/${c.name} in ${c.namespace}: ${c.replicas} replicas, ${c.pods} pods (${c.updatedReplicas} updated, ${c.readyReplicas} ready, ${c.availableReplicas} available)\n` +
    `${revisions}; pods by revision: ${byRevision || 'none'}\n` +
    `strategy: ${strategy.join(', ')}\n`
  );
}

export function planText(r: PlanReport): string {
  const parts = [header(r)];
  if (r.settled) parts.push(`Nothing to do: every pod is at revision ${r.cloneSet.updateRevision} and nothing waits.\n`);
  else {
    parts.push(passText(r, ''));
    if (r.onResume) parts.push(`On resume (kubectl cloneset rollout resume clone/${r.cloneSet.name}), the next pass would:\n${passText(r.onResume, '  ')}`);
  }
  if (r.requeueAfterSeconds !== undefined) parts.push(`The controller plans again in ${r.requeueAfterSeconds}s even if nothing changes.\n`);
  if (r.notes.length > 0) parts.push(`Notes:\n${r.notes.map((n) => `  ${n}\n`).join('')}`);
  return parts.join('\n');
}
