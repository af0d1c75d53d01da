// The pre-download family (OpenKruise's update features): ImagePullJobs ahead of an in-place update, the revision label
// that says they were made, their clean-up once a rollout completes. As in kruise, none of them
// fails the pass: a failed create is a Normal FailedCreateImagePullJob event, an existing job is
// left alone, and a failed revision label or clean-up is logged and tried again by a later pass.
import { isAlreadyExists, mergePatch, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { PreDownloadAction } from '../../core/plan.ts';
import { deleteImagePullJobs, imagePullJobResource } from '../image-pull-jobs.ts';
import { revisionResource } from '../resources.ts';
import { errorMessage, inNamespace, type ExecutionContext } from './context.ts';

export async function runPreDownloadAction(action: PreDownloadAction, ctx: ExecutionContext): Promise<void> {
  switch (action.kind) {
    case 'createImagePullJob':
      try {
        await ctx.client.resource<KubeObject>(imagePullJobResource).create(action.job, inNamespace(ctx));
        ctx.imagePullJobs?.forget(ctx.key);
        ctx.logger.info({ job: action.name, image: action.image, container: action.container }, 'created ImagePullJob');
        ctx.recorder.event(ctx.cs, 'Normal', 'CreatedImagePullJob', 'Create', `created ImagePullJob ${action.name} for image: ${action.image}`);
      } catch (err) {
        if (isAlreadyExists(err)) return;
        ctx.logger.warn({ err, job: action.name }, 'creating an ImagePullJob failed');
        ctx.recorder.event(ctx.cs, 'Normal', 'FailedCreateImagePullJob', 'Create', `failed to create ImagePullJob ${action.name}: ${errorMessage(err)}`);
      }
      return;
    case 'labelRevision':
      try {
        await ctx.client.resource<KubeObject>(revisionResource).patch(ctx.cs.metadata.namespace, action.name, mergePatch({ metadata: { labels: action.labels } }), { signal: ctx.signal });
        if (action.reason !== 'ImagePullJobsCreated') ctx.logger.debug({ revision: action.name, reason: action.reason }, 'image pre-download skipped for this revision');
      } catch (err) {
        ctx.logger.warn({ err, revision: action.name }, 'marking the revision for image pre-download failed');
      }
      return;
    case 'deleteImagePullJobs': {
      const jobs = ctx.imagePullJobs;
      const uid = ctx.cs.metadata.uid ?? '';
      if (!jobs || jobs.alreadyCleaned(ctx.key, uid, action.revision)) return;
      try {
        const deleted = await deleteImagePullJobs(ctx.client, ctx.cs.metadata.namespace, action.names, uid, ctx.signal);
        if (deleted.length) ctx.logger.info({ jobs: deleted, revision: action.revision }, 'deleted ImagePullJobs: the rollout is complete');
        jobs.markCleaned(ctx.key, uid, action.revision);
      } catch (err) {
        ctx.logger.warn({ err }, 'deleting ImagePullJobs failed');
      }
      return;
    }
  }
}
