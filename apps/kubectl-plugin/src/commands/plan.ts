// `plan clone/NAME`: read what the controller's caches would hold, run its planner, print the
// next pass's actions and everything it waits for (or the report as JSON/YAML).
import type { OutputFormat } from '../args.ts';
import type { CloneSetApi } from '../cluster.ts';
import type { FeatureGateSettings } from '../core/feature-gates.ts';
import { reconcileInputOf } from '@cloneset-suite/cloneset-controller';
import { planReport } from '../core/plan-report.ts';
import { planText } from '../core/plan-text.ts';
import { formatObject, type Io } from './io.ts';

export async function plan(api: CloneSetApi, io: Io, o: { name: string; gates: FeatureGateSettings; output: OutputFormat | undefined }): Promise<number> {
  const cs = await api.get(o.name);
  const reads = await api.planReads(cs, { imagePullJobs: o.gates.PreDownloadImageForInPlaceUpdate });
  // New pods' instance ids are the controller's own draw: the report names only reused ones.
  const input = reconcileInputOf(reads, { gates: o.gates, nowMs: io.now().getTime(), random: Math.random });
  const report = planReport(input, { gates: o.gates, nodesUnreadable: reads.nodesUnreadable });
  io.out(o.output ? formatObject(report, o.output) : planText(report));
  return 0;
}
