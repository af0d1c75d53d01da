// ControllerRevisions (OpenKruise's ControllerRevisions): identity by semantic equality of the normalised
// template (README, Compatibility with OpenKruise: moving in), new ones with OpenKruise's exact bytes and name
// (revision-bytes.ts), update/current revision selection, history truncation and pod
// revision labels.
import { createHash } from 'node:crypto';
import type { V1ControllerRevision, V1PersistentVolumeClaim, V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import { canonicalJson, semanticallyEqual } from './canonical.ts';
import { goPodTemplate } from './go-template-encoder.ts';
import {
  POD_TEMPLATE_HASH_LABEL,
  REVISION_HASH_LABEL,
  REVISION_LABEL,
  VCT_HASH_ANNOTATION,
  type FeatureGates,
} from '../keys.ts';
import { ownerRefTo } from '../owner-ref.ts';
import { podRevision, revisionMatches, shortHashOf } from '../pods/pod-state.ts';
import { revisionDataText, revisionHash } from './revision-bytes.ts';
import { toMillis } from '../time.ts';
import type { CloneSetLike } from '../types.ts';
import type { RevisionAction } from '../plan.ts';

/** `<cs-name truncated to 223>-<hash>` (OpenKruise's ControllerRevisions). */
export function revisionName(csName: string, hash: string): string {
  return `${csName.slice(0, 223)}-${hash}`;
}

/** Hash of the VCTs for the `kruise.io/cloneset-volumeclaimtemplate-hash` annotation; '' when none. */
export function vctHash(vcts: readonly V1PersistentVolumeClaim[] | undefined): string {
  if (!vcts || vcts.length === 0) return '';
  const items = vcts
    .map((v) => ({ name: v.metadata?.name ?? '', spec: v.spec ?? {} }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const digest = createHash('sha256').update(canonicalJson(items)).digest();
  return String(digest.readUInt32BE(0));
}

/** Revision data as stored, parsed: `{"spec":{"template":{"$patch":"replace",...}}}` (OpenKruise's ControllerRevisions). */
export function revisionData(template: V1PodTemplateSpec): { spec: { template: Record<string, unknown> } } {
  return JSON.parse(revisionDataText(template)) as { spec: { template: Record<string, unknown> } };
}

/** The pod template stored in a revision (data may be an object or raw JSON text). */
export function templateOfRevision(rev: V1ControllerRevision): V1PodTemplateSpec {
  let data: unknown = rev.data;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data);
    } catch {
      data = {};
    }
  }
  const tpl = (data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec?.template ?? {};
  const { $patch: _patch, ...rest } = tpl;
  return rest;
}

/**
 * Semantic equality as OpenKruise's Go types see a template: both sides go through the Go
 * round trip first, so a value Go cannot tell from unset (an omitempty 0, an unknown field)
 * never makes a revision differ from the template it was written from, whichever version
 * of this controller, or OpenKruise, wrote it.
 */
export function templatesEqual(a: unknown, b: unknown): boolean {
  return semanticallyEqual(goPodTemplate(a), goPodTemplate(b));
}

function compareRevisions(a: V1ControllerRevision, b: V1ControllerRevision): number {
  if (a.revision !== b.revision) return a.revision - b.revision;
  const ta = toMillis(a.metadata?.creationTimestamp) ?? 0;
  const tb = toMillis(b.metadata?.creationTimestamp) ?? 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** Sort by `.revision`, then creation time, then name. */
export function sortRevisions(revs: readonly V1ControllerRevision[]): V1ControllerRevision[] {
  return [...revs].sort(compareRevisions);
}

export interface RevisionsInput {
  cs: CloneSetLike;
  /** Revisions matching the selector, owned by this CloneSet or by no one. */
  revisions: readonly V1ControllerRevision[];
  /** Whether a revision of this name exists in the namespace at all (e.g. another owner's): a collision (OpenKruise's ControllerRevisions). */
  nameTaken?: (name: string) => boolean;
}

export interface RevisionsResult {
  updateRevision: V1ControllerRevision;
  currentRevision: V1ControllerRevision;
  collisionCount: number;
  actions: RevisionAction[];
}

function newRevision(cs: CloneSetLike, name: string, hash: string, number: number, vct: string, data: string): V1ControllerRevision {
  const template = cs.spec.template;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name,
      namespace: cs.metadata.namespace,
      labels: { ...(template.metadata?.labels ?? {}), [REVISION_HASH_LABEL]: hash },
      annotations: { ...(cs.metadata.annotations ?? {}), [VCT_HASH_ANNOTATION]: vct },
      ownerReferences: [ownerRefTo(cs)],
    },
    data: JSON.parse(data) as object,
    revision: number,
  };
}

/**
 * Choose updateRevision and currentRevision (OpenKruise's ControllerRevisions). Reuses a semantically equal
 * revision (the latest one, or bumps an older one on rollback), else creates one,
 * bumping collisionCount while the name is taken by a different template.
 */
export function computeRevisions(input: RevisionsInput): RevisionsResult {
  const { cs } = input;
  const uid = cs.metadata.uid ?? '';
  const history = sortRevisions(
    input.revisions.filter((r) => {
      const ctrl = r.metadata?.ownerReferences?.find((o) => o.controller === true);
      return !ctrl || ctrl.uid === uid;
    }),
  );
  const actions: RevisionAction[] = [];
  const vct = vctHash(cs.spec.volumeClaimTemplates);
  let collisionCount = cs.status?.collisionCount ?? 0;
  const nextNumber = (history.at(-1)?.revision ?? 0) + 1;
  const equal = history.filter((r) => templatesEqual(templateOfRevision(r), cs.spec.template));
  let update: V1ControllerRevision;
  const last = history.at(-1);
  const lastEqual = equal.at(-1);
  if (last && lastEqual && last === lastEqual) {
    update = last;
  } else if (lastEqual) {
    // Rollback to an older template: keep its name (pods labelled with it stay updated).
    const annotations = { ...(lastEqual.metadata?.annotations ?? {}) };
    const vctChanged = (annotations[VCT_HASH_ANNOTATION] ?? '') !== vct;
    if (vctChanged) annotations[VCT_HASH_ANNOTATION] = vct;
    update = { ...lastEqual, revision: nextNumber, metadata: { ...lastEqual.metadata, annotations } };
    actions.push({
      kind: 'updateRevision',
      name: lastEqual.metadata?.name ?? '',
      revision: nextNumber,
      ...(vctChanged ? { annotations } : {}),
    });
  } else {
    const byName = new Map(history.map((r) => [r.metadata?.name ?? '', r]));
    const data = revisionDataText(cs.spec.template);
    // As kruise: the hash label keeps the hash of the first try; only the name follows the count.
    const labelHash = revisionHash(data, collisionCount);
    for (;;) {
      const name = revisionName(cs.metadata.name ?? '', revisionHash(data, collisionCount));
      if (!byName.has(name) && !input.nameTaken?.(name)) {
        update = newRevision(cs, name, labelHash, nextNumber, vct, data);
        actions.push({ kind: 'createRevision', revision: update, data });
        break;
      }
      collisionCount++;
    }
  }
  const currentName = cs.status?.currentRevision;
  const current = history.find((r) => r.metadata?.name === currentName) ?? update;
  return { updateRevision: update, currentRevision: current, collisionCount, actions };
}

/**
 * History truncation (OpenKruise's ControllerRevisions): live = current, update, and any revision a claimed pod
 * carries; the newest non-live ones are kept up to the limit (nil = 10).
 */
export function planHistoryTruncation(
  revisions: readonly V1ControllerRevision[],
  live: { currentRevision: string; updateRevision: string; claimedPods: readonly V1Pod[] },
  revisionHistoryLimit: number | undefined,
): RevisionAction[] {
  const limit = Math.max(revisionHistoryLimit ?? 10, 0);
  const podRevs = live.claimedPods.map(podRevision).filter((r) => r !== '');
  const isLive = (name: string) =>
    name === live.currentRevision || name === live.updateRevision || podRevs.some((l) => revisionMatches(l, name));
  const nonLive = sortRevisions(revisions).filter((r) => !isLive(r.metadata?.name ?? ''));
  const excess = nonLive.length - limit;
  return excess > 0 ? nonLive.slice(0, excess).map((r) => ({ kind: 'deleteRevision', name: r.metadata?.name ?? '' })) : [];
}

/** Pod labels naming a revision (OpenKruise's well-known keys): full name or short hash, plus pod-template-hash. */
export function revisionLabels(revisionName: string, gates: FeatureGates): Record<string, string> {
  const short = shortHashOf(revisionName);
  return {
    [REVISION_LABEL]: gates.CloneSetShortHash ? short : revisionName,
    [POD_TEMPLATE_HASH_LABEL]: short,
  };
}
