// Writes a round's results (the status, then the pods' detail annotations) so that a write the
// apiserver refuses for good costs one attempt and one Event naming the rule and the reason, and
// is not sent again unchanged (refused-writes.ts). Other errors propagate: the reconcile is
// retried with backoff.
import type { PodTransitionRuleStatus } from '@cloneset-suite/api-types';
import type { Clock, DeepReadonly, EventRecorder, KubeClient, Logger } from '@cloneset-suite/kube-runtime';
import type { AnnotationChange } from '../core/results.ts';
import { RefusedWrites, isRefusal } from './refused-writes.ts';
import type { PodTransitionRuleObject } from './resources.ts';
import { patchAnnotation, writeStatus } from './writes.ts';

export const STATUS_WRITE_REFUSED_REASON = 'StatusWriteRefused';
export const DETAIL_ANNOTATION_REFUSED_REASON = 'DetailAnnotationRefused';

type Ptr = DeepReadonly<PodTransitionRuleObject>;

export interface StatusWriteResult {
  /** The status is stored as planned. */
  saved: boolean;
  resourceVersion?: string | undefined;
}

export class ResultWriter {
  private readonly refused = new RefusedWrites();
  private readonly client: KubeClient;
  private readonly recorder: EventRecorder;
  private readonly clock: Clock;

  constructor(options: { client: KubeClient; recorder: EventRecorder; clock: Clock }) {
    this.client = options.client;
    this.recorder = options.recorder;
    this.clock = options.clock;
  }

  async status(ptr: Ptr, key: string, status: PodTransitionRuleStatus, logger: Logger, signal: AbortSignal): Promise<StatusWriteResult> {
    const target = `${key}/status`;
    const { updateTime: _changesEveryWrite, ...content } = status;
    const fingerprint = JSON.stringify(content);
    const now = this.clock.now();
    if (this.refused.isRefused(target, fingerprint, now)) {
      logger.debug('status unchanged since the apiserver refused it: not sent again');
      return { saved: false };
    }
    try {
      const resourceVersion = await writeStatus(this.client, ptr, status, signal);
      this.refused.accepted(target);
      return { saved: true, resourceVersion };
    } catch (err) {
      if (!isRefusal(err)) throw err;
      this.refused.refuse(target, fingerprint, now);
      logger.info({ err: err.message }, 'the apiserver refused the status');
      this.recorder.event(ptr, 'Warning', STATUS_WRITE_REFUSED_REASON, 'UpdateStatus', `the apiserver refused the status of PodTransitionRule ${key}: ${err.message}; it is sent again when it changes`);
      return { saved: false };
    }
  }

  async annotations(ptr: Ptr, key: string, namespace: string, changes: readonly AnnotationChange[], logger: Logger, signal: AbortSignal): Promise<void> {
    const now = this.clock.now();
    for (const change of changes) {
      const target = `${key}/pods/${change.pod}`;
      const content = change.value ?? '';
      if (this.refused.isRefused(target, content, now)) continue;
      try {
        await patchAnnotation(this.client, namespace, change, signal);
        this.refused.accepted(target);
      } catch (err) {
        if (!isRefusal(err)) throw err;
        this.refused.refuse(target, content, now);
        logger.info({ pod: change.pod, err: err.message }, 'the apiserver refused the detail annotation');
        this.recorder.event(
          ptr,
          'Warning',
          DETAIL_ANNOTATION_REFUSED_REASON,
          'PatchPod',
          `the apiserver refused the detail annotation of pod ${namespace}/${change.pod}: ${err.message}; it is sent again when it changes`,
        );
      }
    }
  }

  forget(key: string): void {
    this.refused.forget(key);
  }
}
