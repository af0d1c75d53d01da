// The one renderer of a wait to words: the PodsHeld, FailedScale and FailedUpdate messages, the
// Events, the debug log line and kubectl-cloneset all say a wait with waitMessage. The messages
// said on conditions and Events are the controller's published texts (alerts and scenarios
// match them): change them only together with those.
import { unavailabilityText } from '../pods/availability.ts';
import type { Wait } from '../wait.ts';

// Names are capped so a large CloneSet does not write a status message of thousands of names.
const NAMES_SHOWN = 10;

/** Names in a sentence: every one up to ten, then how many more. */
function names(pods: readonly string[]): string {
  const shown = pods.slice(0, NAMES_SHOWN).join(', ');
  return pods.length > NAMES_SHOWN ? `${shown} and ${pods.length - NAMES_SHOWN} more` : shown;
}

/** Held pods as a condition or an Event says them: the count, then the names in order. */
function heldPods(pods: readonly string[]): string {
  return `${pods.length} pod(s): ${names([...pods].sort())}`;
}

const operationOf = (type: string): string => `cloneset/${type}`;

export function waitMessage(w: Wait): string {
  switch (w.kind) {
    case 'lifecycleHook': {
      const release = [...w.finalizers.map((f) => `finalizer ${f}`), ...Object.entries(w.labels).map(([k, v]) => `label ${k}=${v}`)].join(', ');
      return `waiting for lifecycle hook ${w.hook} (${release}) to release ${heldPods(w.pods)} held in ${w.state}`;
    }
    case 'podTransitionRule': {
      const rule = w.rule ? ` rule ${w.rule}` : '';
      const why = w.reason ? `: ${w.reason}` : '';
      return `waiting for PodTransitionRule ${w.transitionRule}${rule} to pass ${heldPods(w.pods)} held in ${w.stage} for ${w.operationTypes.join(', ')}${why}`;
    }
    case 'operationTypeLabel':
      return `waiting for label ${w.label} to say again what the CloneSet began on ${heldPods(w.pods)} (changed after operate was granted)`;
    case 'terminatingPods':
      return `waiting for terminating pod(s) ${w.pods.join(', ')} to be deleted before creating their replacements with the same instance ids and PVCs`;
    case 'instanceIdsExhausted':
      return (
        `no free instance id for ${w.short} of ${w.asked} new pods: the ${w.idSpace} ids of ${w.idLength} characters are taken by pods, ` +
        `PVCs or pod names of the namespace (${w.cloneSet}-<id>); creating the ${w.found} found`
      );
    case 'selectorExcludesPods':
      return w.cause;
    case 'resizeStalled': {
      const answered = `pod ${w.pods[0] ?? ''}: the node answered its resize ${w.answer}${w.nodeMessage ? ` (${w.nodeMessage})` : ''}`;
      return 'held' in w.then ? `${answered}; held: ${w.then.held}` : `${answered}; re-creating it at revision ${w.then.recreateAt}`;
    }
    case 'deleting':
      return 'the CloneSet is being deleted: pods are neither created nor updated';
    case 'paused':
      return `${names(w.pods)}: spec.updateStrategy.paused is true; no pod is updated until the rollout resumes`;
    case 'onDelete':
      return `${names(w.pods)}: updateStrategy OnDelete; each moves to revision ${w.revision} only when it is deleted`;
    case 'refresh':
      return `${names(w.pods)}: this pass writes pod lifecycle states and labels first; the next pass chooses pods to update`;
    case 'scaleFirst':
      return `${names(w.pods)}: the Update step runs on a later pass; this pass creates or deletes pods first`;
    case 'partition':
      return `partition ${w.partition} keeps ${Object.entries(w.byRevision)
        .map(([revision, pods]) => `${names(pods)} at revision ${revision}`)
        .join('; ')}`;
    case 'maxUnavailable': {
      const used = [
        ...(w.unavailable.length > 0 ? [`unavailable now: ${names(w.unavailable.map((u) => `${u.pod} (${unavailabilityText(u.why)})`))}`] : []),
        ...(w.taking.length > 0 ? [`taken by this pass: ${names(w.taking)}`] : []),
      ];
      return `${names(w.pods)}: waiting for the maxUnavailable budget (${w.maxUnavailable} pod(s)); ${used.join('; ') || 'used up'}`;
    }
    case 'scaleUpLimited':
      return `scaleUp is limited because of scaleStrategy.maxUnavailable, limit: ${w.limit}`;
    case 'scaleInBlocked':
      return `scale in of ${w.count} pod(s) waits until the pods being deleted are gone: ${names(w.pods)}`;
    case 'minReadySeconds':
      return `${names(w.pods)}: ${unavailabilityText(w.why)}; available in ${w.availableInSeconds}s`;
    case 'podOpsLifecycle': {
      const at = `${names(w.pods)}: in ${w.phase} of ${operationOf(w.operationType)}`;
      if (w.phase === 'PreCheck') return `${at}, waiting for the PodTransitionRules selecting it (none has rejected it yet)`;
      if (w.phase === 'Preparing') return `${at}, waiting for the lifecycle controller to take it offline and grant operate`;
      return `${at}, waiting for the lifecycle controller to grant operate`;
    }
    case 'protectionFinalizer':
      return w.phase === 'Preparing'
        ? `${names(w.pods)}: in Preparing of ${operationOf(w.operationType)}, waiting for finalizer ${w.finalizers.join(', ')} to be removed by the controller that put it there`
        : `${names(w.pods)}: ${operationOf(w.operationType)} may operate, but finalizer ${w.finalizers.join(', ')} still protects it`;
  }
}
