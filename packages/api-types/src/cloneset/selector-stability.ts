// A selector must keep matching the pods the controller creates *after* it adds its own labels
// (revision hashes, instance id, lifecycle state). One that does not (e.g. `pod-template-hash
// DoesNotExist`, meant to exclude a Deployment's pods) makes every new pod fall out of the
// selector at once: it is released and replaced in the same pass, forever.
import { KRUISE_LABELS, LIFECYCLE_STATES } from '../keys/kruise.ts';
import type { LabelSelector } from '../meta.ts';
import { labelSelectorMatches } from '../selector.ts';

/** Labels the controller writes on every pod it creates, overriding the template's. */
export const CONTROLLER_POD_LABELS = [
  KRUISE_LABELS.controllerRevisionHash,
  KRUISE_LABELS.podTemplateHash,
  KRUISE_LABELS.cloneSetInstanceId,
  KRUISE_LABELS.lifecycleState,
] as const;

// Two different samples of each varying value: a selector that pins one value (In/NotIn/equality)
// fails on the other, as it would on the next revision or instance.
const SAMPLES = [
  { hash: '5d8f7b9c4c', id: 'b7x2k' },
  { hash: '6f4d9c8b7d', id: 'q9z4m' },
];

/**
 * Keys of the controller's labels that make `selector` miss a pod built from the template, or
 * an empty list when every pod the controller can create (any revision, id and lifecycle state)
 * is selected.
 */
export function selectorConflictsWithControllerLabels(
  selector: LabelSelector,
  templateLabels: Readonly<Record<string, string>> | undefined,
  cloneSetName: string,
): string[] {
  const states = Object.values(LIFECYCLE_STATES);
  const matchesEveryPod = SAMPLES.every((s) =>
    states.every((state) =>
      labelSelectorMatches(selector, {
        ...(templateLabels ?? {}),
        [KRUISE_LABELS.controllerRevisionHash]: `${cloneSetName}-${s.hash}`,
        [KRUISE_LABELS.podTemplateHash]: s.hash,
        [KRUISE_LABELS.cloneSetInstanceId]: s.id,
        [KRUISE_LABELS.lifecycleState]: state,
      }),
    ),
  );
  if (matchesEveryPod) return [];
  const named = new Set([...Object.keys(selector.matchLabels ?? {}), ...(selector.matchExpressions ?? []).map((e) => e.key)]);
  return CONTROLLER_POD_LABELS.filter((k) => named.has(k));
}
