// Stage membership (as Kuperator's): a pod is in PreCheck while it has any `pre-check.…/<id>` label and
// in PostCheck while it has any `post-check.…/<id>` label (`pre-checked.` does not match). When
// both are present the stage is PreCheck (deterministic, PreCheck first; Kuperator picks one
// arbitrarily).
import { POL_PREFIXES, parseNanoTimestamp } from '@cloneset-suite/api-types';
import type { LifecycleStage, PodView } from './types.ts';

const STAGE_PREFIX: Record<LifecycleStage, string> = {
  PreCheck: POL_PREFIXES.preCheck,
  PostCheck: POL_PREFIXES.postCheck,
};

function stageKeys(labels: Readonly<Record<string, string>> | undefined, stage: LifecycleStage): string[] {
  const prefix = STAGE_PREFIX[stage];
  // `pre-check.podopslifecycle.kusionstack.io/x` and the bare prefix count; `pre-checked.` does not.
  return Object.keys(labels ?? {}).filter((k) => k.startsWith(prefix) && (k.length === prefix.length || k[prefix.length] === '/'));
}

export function podStage(pod: PodView): LifecycleStage | undefined {
  const labels = pod.metadata?.labels;
  if (stageKeys(labels, 'PreCheck').length > 0) return 'PreCheck';
  if (stageKeys(labels, 'PostCheck').length > 0) return 'PostCheck';
  return undefined;
}

/** When the pod entered the stage: the earliest stage label timestamp (ns); undefined if none parses. */
export function stageEnteredAt(pod: PodView, stage: LifecycleStage): bigint | undefined {
  const labels = pod.metadata?.labels ?? {};
  let earliest: bigint | undefined;
  for (const key of stageKeys(labels, stage)) {
    const ts = parseNanoTimestamp(labels[key]);
    if (ts !== undefined && (earliest === undefined || ts < earliest)) earliest = ts;
  }
  return earliest;
}

/** A deterministic quota order: pods that entered the stage first come first, then by name; no timestamp sorts last. */
export function byStageEntry(stage: LifecycleStage): (a: PodView, b: PodView) => number {
  return (a, b) => {
    const ta = stageEnteredAt(a, stage);
    const tb = stageEnteredAt(b, stage);
    if (ta !== tb) {
      if (ta === undefined) return 1;
      if (tb === undefined) return -1;
      return ta < tb ? -1 : 1;
    }
    return podName(a) < podName(b) ? -1 : podName(a) > podName(b) ? 1 : 0;
  };
}

export function podName(pod: PodView): string {
  return pod.metadata?.name ?? '';
}
