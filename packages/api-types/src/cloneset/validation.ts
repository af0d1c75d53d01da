// CloneSet admission validation: OpenKruise's CloneSet validating webhook, plus OnDelete and
// progressDeadlineSeconds (OpenKruise v1.9 features) accepted in v1alpha1 too.
// Pure: the pod lookups the podsToDelete rule needs are passed in.
import type { V1Container, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { FieldPath, fieldError, type FieldError } from '../field-errors.ts';
import { parseIntOrPercent, scalePercent, tryParseIntOrPercent, type ParsedIntOrPercent } from '../intstr.ts';
import { jsonEqual } from '../json-equal.ts';
import { DELETE_PROTECTION_POLICIES, KRUISE_LABELS } from '../keys/kruise.ts';
import type { IntOrString } from '../meta.ts';
import { dns1123SubdomainErrors } from '../names.ts';
import { isEmptyLabelSelector, labelSelectorMatches, validateLabelSelector } from '../selector.ts';
import { podsToDeleteLimitErrors, replicasLimitErrors } from './admission-limits.ts';
import { lifecycleHookErrors, nameLengthErrors, volumeClaimTemplateErrors } from './apiserver-rules.ts';
import { selectorConflictsWithControllerLabels } from './selector-stability.ts';
import { validateCloneSetTemplate } from './template-validation.ts';
import { CLONESET_UPDATE_STRATEGY_TYPES, MAX_INT32, type CloneSet, type CloneSetSpec, type CloneSetUpdateStrategy } from './schema.ts';

/** What the podsToDelete rule needs to know about a pod (undefined: no such pod). */
export interface PodLookup {
  deletionTimestamp?: unknown;
  ownerReferences?: readonly { uid: string; controller?: boolean }[];
}

export interface CloneSetValidationOptions {
  /** Looks a pod up by name in the CloneSet's namespace. Without it, podsToDelete names are not looked up. */
  getPod?: (name: string) => PodLookup | undefined;
  /** The CloneSetShortHash feature gate: pods carry only the hash, so long names fit their labels. */
  cloneSetShortHash?: boolean;
}

/** Spec fields an UPDATE may change; everything else (in practice: the selector) is immutable. */
export const CLONESET_MUTABLE_SPEC_FIELDS = [
  'replicas',
  'template',
  'lifecycle',
  'scaleStrategy',
  'updateStrategy',
  'minReadySeconds',
  'volumeClaimTemplates',
  'revisionHistoryLimit',
  'progressDeadlineSeconds',
] as const;

function nonNegative(value: number | undefined, path: FieldPath, errs: FieldError[]): void {
  if (value === undefined || value === null) return;
  if (!Number.isInteger(value) || value < 0) errs.push(fieldError.invalid(path.toString(), value, 'must be greater than or equal to 0'));
}

/** An int or an integer percentage, not negative; returns the parsed value when valid. */
function intOrIntPercent(value: IntOrString | undefined, path: FieldPath, errs: FieldError[]): ParsedIntOrPercent | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = tryParseIntOrPercent(value);
  if (parsed === undefined) {
    errs.push(fieldError.invalid(path.toString(), value, 'must be an integer or percentage (e.g \'5%\')'));
    return undefined;
  }
  if (parsed.value < 0) {
    errs.push(fieldError.invalid(path.toString(), value, 'must be greater than or equal to 0'));
    return undefined;
  }
  return parsed;
}

function ceilValue(parsed: ParsedIntOrPercent | undefined, replicas: number, fallback: number): number {
  return parsed === undefined ? fallback : scalePercent(parsed, replicas, 'up');
}

function validateUpdateStrategy(strategy: CloneSetUpdateStrategy, replicas: number, path: FieldPath, errs: FieldError[]): void {
  const type = strategy.type;
  if (type !== undefined && !(CLONESET_UPDATE_STRATEGY_TYPES as readonly string[]).includes(type)) {
    errs.push(fieldError.notSupported(path.child('type').toString(), type, CLONESET_UPDATE_STRATEGY_TYPES));
  }

  if (strategy.partition !== undefined && strategy.partition !== null) {
    const p = path.child('partition');
    let parsed: ParsedIntOrPercent | undefined;
    try {
      parsed = parseIntOrPercent(strategy.partition, { decimalPercent: true });
    } catch {
      errs.push(fieldError.invalid(p.toString(), strategy.partition, 'partition must be an integer or a percentage such as \'25%\' or \'12.5%\''));
    }
    if (parsed !== undefined && scalePercent(parsed, replicas, 'up') < 0) {
      errs.push(fieldError.invalid(p.toString(), strategy.partition, 'partition can not be negative'));
    }
  }

  const maxUnavailable = intOrIntPercent(strategy.maxUnavailable, path.child('maxUnavailable'), errs);
  const maxSurge = intOrIntPercent(strategy.maxSurge, path.child('maxSurge'), errs);
  const unavailableBad = strategy.maxUnavailable !== undefined && maxUnavailable === undefined;
  const surgeBad = strategy.maxSurge !== undefined && maxSurge === undefined;

  if (type === 'InPlaceOnly' && maxSurge !== undefined && scalePercent(maxSurge, replicas, 'up') > 0) {
    errs.push(fieldError.invalid(path.child('maxSurge').toString(), strategy.maxSurge, 'can not use maxSurge with strategy type InPlaceOnly'));
  }
  // Judged as upstream does: both rounded up, unset maxUnavailable meaning the default 20%.
  if (replicas > 0 && !unavailableBad && !surgeBad) {
    const u = ceilValue(maxUnavailable, replicas, 1);
    const s = ceilValue(maxSurge, replicas, 0);
    if (u < 1 && s < 1) {
      errs.push(fieldError.invalid(path.child('maxUnavailable').toString(), strategy.maxUnavailable, 'maxUnavailable and maxSurge should not both be less than 1'));
    }
  }

  const priority = strategy.priorityStrategy;
  if (priority) {
    const pp = path.child('priorityStrategy');
    const weights = priority.weightPriority ?? [];
    const orders = priority.orderPriority ?? [];
    if (weights.length > 0 && orders.length > 0) {
      errs.push(fieldError.invalid(pp.toString(), priority, 'weightPriority and orderPriority cannot be set at the same time'));
    }
    weights.forEach((term, i) => {
      const tp = pp.child('weightPriority').index(i);
      if (!Number.isInteger(term.weight) || term.weight < 0 || term.weight > 100) {
        errs.push(fieldError.invalid(tp.child('weight').toString(), term.weight, 'weight must be in range [0, 100]'));
      }
      const sp = tp.child('matchSelector');
      if (term.matchSelector === undefined || term.matchSelector === null) errs.push(fieldError.required(sp.toString()));
      else if (isEmptyLabelSelector(term.matchSelector)) errs.push(fieldError.invalid(sp.toString(), term.matchSelector, 'selector can not be empty'));
      else errs.push(...validateLabelSelector(term.matchSelector, sp));
    });
    orders.forEach((term, i) => {
      if (typeof term.orderedKey !== 'string' || term.orderedKey === '') {
        errs.push(fieldError.required(pp.child('orderPriority').index(i).child('orderedKey').toString(), 'orderedKey can not be empty'));
      }
    });
  }

  const seen = new Set<string>();
  (strategy.scatterStrategy ?? []).forEach((term, i) => {
    const tp = path.child('scatterStrategy').index(i);
    if (typeof term.key !== 'string' || term.key === '') {
      errs.push(fieldError.required(tp.child('key').toString(), 'key can not be empty'));
      return;
    }
    const pair = `${term.key}:${term.value}`;
    if (seen.has(pair)) errs.push(fieldError.duplicate(tp.toString(), pair));
    seen.add(pair);
  });

  if (strategy.inPlaceUpdateStrategy) {
    nonNegative(strategy.inPlaceUpdateStrategy.gracePeriodSeconds, path.child('inPlaceUpdateStrategy').child('gracePeriodSeconds'), errs);
  }
}

function validatePodsToDelete(cs: CloneSet, old: CloneSet | undefined, options: CloneSetValidationOptions, errs: FieldError[]): void {
  const names = cs.spec.scaleStrategy?.podsToDelete ?? [];
  const path = new FieldPath('spec.scaleStrategy.podsToDelete');
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (seen.has(name)) errs.push(fieldError.duplicate(path.index(i).toString(), name));
    seen.add(name);
  });
  const getPod = options.getPod;
  if (getPod === undefined) return;
  const before = new Set(old?.spec.scaleStrategy?.podsToDelete ?? []);
  const uid = cs.metadata?.uid;
  names.forEach((name, i) => {
    if (before.has(name)) return; // only names added by this request are looked up
    const pod = getPod(name);
    const p = path.index(i).toString();
    if (pod === undefined) errs.push(fieldError.invalid(p, name, `pod ${name} not found`));
    else if (pod.deletionTimestamp !== undefined && pod.deletionTimestamp !== null) {
      errs.push(fieldError.invalid(p, name, `pod ${name} is already terminating`));
    } else {
      const owner = pod.ownerReferences?.find((r) => r.controller === true);
      if (owner === undefined || owner.uid !== uid) errs.push(fieldError.invalid(p, name, `pod ${name} is not owned by this CloneSet`));
    }
  });
}

/** On an InPlaceOnly update, the pod spec may change only in existing container images. */
function onlyImagesChanged(oldSpec: unknown, newSpec: unknown): boolean {
  if (jsonEqual(oldSpec, newSpec)) return true;
  const o = (oldSpec ?? {}) as { containers?: V1Container[] };
  const n = (newSpec ?? {}) as { containers?: V1Container[] };
  const oc = o.containers ?? [];
  const nc = n.containers ?? [];
  if (oc.length !== nc.length) return false;
  for (let i = 0; i < oc.length; i++) {
    // A replace needs an image on both sides; adding or removing one is another kind of change.
    if ((oc[i]?.image === undefined) !== (nc[i]?.image === undefined)) return false;
  }
  const blank = (cs: V1Container[]) => cs.map((c) => ({ ...c, image: c.image === undefined ? undefined : '' }));
  return jsonEqual({ ...o, containers: blank(oc) }, { ...n, containers: blank(nc) });
}

function validateUpdate(cs: CloneSet, old: CloneSet, errs: FieldError[]): void {
  const strip = (spec: CloneSetSpec) => {
    const rest: Record<string, unknown> = { ...spec };
    for (const f of CLONESET_MUTABLE_SPEC_FIELDS) delete rest[f];
    return rest;
  };
  if (!jsonEqual(strip(cs.spec), strip(old.spec))) {
    errs.push(
      fieldError.forbidden(
        'spec',
        `updates to cloneset spec for fields other than ${CLONESET_MUTABLE_SPEC_FIELDS.map((f) => `'${f}'`).join(', ')} are forbidden`,
      ),
    );
  }
  if (cs.spec.updateStrategy?.type === 'InPlaceOnly' && !onlyImagesChanged(old.spec.template.spec, cs.spec.template.spec)) {
    errs.push(
      fieldError.forbidden('spec.template.spec', 'only allowed to update images in spec for InPlaceOnly strategy, but found other changes'),
    );
  }
}

/**
 * Field errors of a CloneSet on CREATE (no `old`) or UPDATE. Meant to run after defaultCloneSet,
 * as the validating webhook does; it still copes with raw objects missing required parts.
 */
export function validateCloneSet(cs: CloneSet, old?: CloneSet, options: CloneSetValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const name = cs.metadata?.name;
  if (typeof name === 'string' && name !== '') {
    for (const m of dns1123SubdomainErrors(name)) errs.push(fieldError.invalid('metadata.name', name, m));
    if (old === undefined) errs.push(...nameLengthErrors(name, options.cloneSetShortHash ?? false));
  }
  const spec = cs.spec as CloneSetSpec | undefined;
  if (spec === undefined || spec === null) return [...errs, fieldError.required('spec')];
  const path = new FieldPath('spec');
  const replicas = spec.replicas ?? 1;

  if (spec.replicas !== undefined && spec.replicas !== null && (!Number.isInteger(spec.replicas) || spec.replicas < 0)) {
    errs.push(fieldError.invalid(path.child('replicas').toString(), spec.replicas, 'replicas cannot be negative'));
  }
  errs.push(...replicasLimitErrors(path.child('replicas').toString(), spec.replicas, old?.spec?.replicas));

  const selector = spec.selector as CloneSetSpec['selector'] | undefined;
  if (selector === undefined || selector === null) errs.push(fieldError.required(path.child('selector').toString()));
  else {
    const selectorErrs = validateLabelSelector(selector, path.child('selector'));
    errs.push(...selectorErrs);
    if (selectorErrs.length === 0) {
      if (isEmptyLabelSelector(selector)) {
        errs.push(fieldError.invalid(path.child('selector').toString(), selector, 'empty selector is invalid for cloneset'));
      } else if (!labelSelectorMatches(selector, spec.template?.metadata?.labels)) {
        errs.push(fieldError.invalid(path.child('template').child('metadata').child('labels').toString(), spec.template?.metadata?.labels ?? {}, '`selector` does not match template `labels`'));
      } else if (old === undefined) {
        // On CREATE only: the selector is immutable, so refusing updates of an existing CloneSet
        // would only stop its owner from scaling it down or deleting its pods' template.
        const keys = selectorConflictsWithControllerLabels(selector, spec.template?.metadata?.labels, cs.metadata?.name ?? '');
        if (keys.length > 0) {
          errs.push(
            fieldError.invalid(
              path.child('selector').toString(),
              selector,
              `selector must select every pod the controller creates, but it constrains ${keys.map((k) => `"${k}"`).join(', ')}, which the controller sets on each pod (it varies with the revision, instance and lifecycle state): new pods would be released and replaced forever`,
            ),
          );
        }
      }
    }
  }

  const claimNames = (spec.volumeClaimTemplates ?? []).map((c: V1PersistentVolumeClaim) => c.metadata?.name ?? '').filter((n) => n !== '');
  errs.push(...validateCloneSetTemplate(spec.template, path.child('template'), claimNames));
  errs.push(...volumeClaimTemplateErrors(spec.volumeClaimTemplates, path.child('volumeClaimTemplates')));
  errs.push(...lifecycleHookErrors(spec.lifecycle, path.child('lifecycle')));

  nonNegative(spec.minReadySeconds, path.child('minReadySeconds'), errs);
  nonNegative(spec.revisionHistoryLimit, path.child('revisionHistoryLimit'), errs);
  const deadline = spec.progressDeadlineSeconds;
  if (deadline !== undefined && deadline !== null && deadline !== MAX_INT32) {
    if (!Number.isInteger(deadline) || deadline < 0) {
      errs.push(fieldError.invalid(path.child('progressDeadlineSeconds').toString(), deadline, 'must be greater than or equal to 0'));
    } else if (deadline <= (spec.minReadySeconds ?? 0)) {
      errs.push(fieldError.invalid(path.child('progressDeadlineSeconds').toString(), deadline, 'must be greater than minReadySeconds'));
    }
  }

  if (spec.scaleStrategy) {
    intOrIntPercent(spec.scaleStrategy.maxUnavailable, path.child('scaleStrategy').child('maxUnavailable'), errs);
    const limitErrs = podsToDeleteLimitErrors(path.child('scaleStrategy').child('podsToDelete').toString(), spec.scaleStrategy.podsToDelete);
    if (limitErrs.length > 0) errs.push(...limitErrs);
    else validatePodsToDelete(cs, old, options, errs);
  }
  validateUpdateStrategy(spec.updateStrategy ?? {}, replicas, path.child('updateStrategy'), errs);

  if (old !== undefined) validateUpdate(cs, old, errs);
  return errs;
}

export interface CloneSetDeletionOptions {
  /** The ResourcesDeletionProtection feature gate (off by default). */
  resourcesDeletionProtection: boolean;
}

/** DELETE admission: the `policy.kruise.io/delete-protection` label, under its feature gate. */
export function validateCloneSetDeletion(cs: CloneSet, options: CloneSetDeletionOptions): FieldError[] {
  if (!options.resourcesDeletionProtection) return [];
  const policy = cs.metadata?.labels?.[KRUISE_LABELS.deleteProtection];
  const field = `metadata.labels[${KRUISE_LABELS.deleteProtection}]`;
  if (policy === DELETE_PROTECTION_POLICIES.always) {
    return [fieldError.forbidden(field, `forbidden by ResourcesProtectionDeletion for ${KRUISE_LABELS.deleteProtection}=${policy}`)];
  }
  if (policy === DELETE_PROTECTION_POLICIES.cascading && (cs.spec.replicas ?? 1) > 0) {
    return [fieldError.forbidden(field, `forbidden by ResourcesProtectionDeletion for ${KRUISE_LABELS.deleteProtection}=${policy} and replicas ${cs.spec.replicas ?? 1}>0`)];
  }
  return [];
}
