// Parts of a CloneSet that the apiserver checks only later, on the objects the controller makes
// from it (pod labels, PVCs, pod scheduling fields). Refused here instead: under ReCreate a
// template the apiserver refuses deletes up to maxUnavailable pods whose replacements then fail.
import type { V1PersistentVolumeClaim, V1PodSpec, V1Toleration, V1Volume } from '@kubernetes/client-node';
import { fieldError, type FieldError, type FieldPath } from '../field-errors.ts';
import { dns1123LabelErrors, labelValueErrors, qualifiedNameErrors } from '../names.ts';
import { parseQuantity } from '../quantity.ts';
import type { Lifecycle, LifecycleHook } from './schema.ts';

/** Longest hash the revision name carries (FNV-1 32-bit in decimal, safe-encoded). */
const MAX_HASH_LENGTH = 10;
const LABEL_VALUE_MAX = 63;

/**
 * Without CloneSetShortHash each pod carries `controller-revision-hash: <name>-<hash>`, a label
 * value of at most 63 characters.
 */
export function nameLengthErrors(name: string, shortHash: boolean): FieldError[] {
  const max = LABEL_VALUE_MAX - 1 - MAX_HASH_LENGTH;
  if (shortHash || name.length <= max) return [];
  return [
    fieldError.invalid(
      'metadata.name',
      name,
      `must be no more than ${max} characters: each pod is labelled controller-revision-hash=<name>-<hash> (up to ${MAX_HASH_LENGTH} hash characters), and a label value may not exceed ${LABEL_VALUE_MAX} characters (or turn on the CloneSetShortHash feature gate)`,
    ),
  ];
}

const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] as const;

/** Each claim template must make a PVC the apiserver accepts: a name, access modes, a storage request. */
export function volumeClaimTemplateErrors(templates: readonly V1PersistentVolumeClaim[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (templates ?? []).forEach((t, i) => {
    const p = path.index(i);
    const name = t.metadata?.name;
    if (typeof name !== 'string' || name === '') errs.push(fieldError.required(p.child('metadata').child('name').toString()));
    else {
      // The name is also the pod's volume name, so it follows volume-name rules.
      for (const m of dns1123LabelErrors(name)) errs.push(fieldError.invalid(p.child('metadata').child('name').toString(), name, m));
      if (seen.has(name)) errs.push(fieldError.duplicate(p.child('metadata').child('name').toString(), name));
      seen.add(name);
    }
    const modes = t.spec?.accessModes ?? [];
    if (modes.length === 0) errs.push(fieldError.required(p.child('spec').child('accessModes').toString(), 'at least 1 access mode is required'));
    modes.forEach((m, j) => {
      if (!(ACCESS_MODES as readonly string[]).includes(m)) errs.push(fieldError.notSupported(p.child('spec').child('accessModes').index(j).toString(), m, ACCESS_MODES));
    });
    const storage = t.spec?.resources?.requests?.['storage'];
    const storagePath = p.child('spec').child('resources').child('requests').index('storage').toString();
    if (storage === undefined || storage === null || storage === '') errs.push(fieldError.required(storagePath));
    else {
      const value = parseQuantity(String(storage));
      if (value === undefined || value <= 0) errs.push(fieldError.invalid(storagePath, String(storage), 'must be greater than zero'));
    }
  });
  return errs;
}

/** Volume sources of Kubernetes 1.36 (core/v1 VolumeSource). */
const VOLUME_SOURCES = [
  'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephfs', 'cinder', 'configMap', 'csi', 'downwardAPI', 'emptyDir',
  'ephemeral', 'fc', 'flexVolume', 'flocker', 'gcePersistentDisk', 'gitRepo', 'glusterfs', 'hostPath', 'image', 'iscsi',
  'nfs', 'persistentVolumeClaim', 'photonPersistentDisk', 'portworxVolume', 'projected', 'quobyte', 'rbd', 'scaleIO',
  'secret', 'storageos', 'vsphereVolume',
] as const;

/** Exactly one source per volume. */
export function volumeSourceErrors(volume: V1Volume, path: FieldPath): FieldError[] {
  const fields = volume as unknown as Record<string, unknown>;
  const given = VOLUME_SOURCES.filter((s) => fields[s] !== undefined && fields[s] !== null);
  if (given.length === 0) return [fieldError.required(path.toString(), 'must specify a volume type')];
  return given.slice(1).map((s) => fieldError.forbidden(path.child(s).toString(), 'may not specify more than 1 volume type'));
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

function tolerationErrors(t: V1Toleration, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const operator = t.operator ?? 'Equal';
  if (t.key) for (const m of qualifiedNameErrors(t.key)) errs.push(fieldError.invalid(path.child('key').toString(), t.key, m));
  if (!t.key && operator !== 'Exists') {
    errs.push(fieldError.invalid(path.child('operator').toString(), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
  }
  if (operator === 'Exists' && t.value) errs.push(fieldError.invalid(path.child('value').toString(), t.value, 'value must be empty when `operator` is \'Exists\''));
  else if (operator === 'Equal' && t.value) for (const m of labelValueErrors(t.value)) errs.push(fieldError.invalid(path.child('value').toString(), t.value, m));
  else if (operator !== 'Equal' && operator !== 'Exists') errs.push(fieldError.notSupported(path.child('operator').toString(), operator, ['Equal', 'Exists']));
  if (t.effect && !(TAINT_EFFECTS as readonly string[]).includes(t.effect)) errs.push(fieldError.notSupported(path.child('effect').toString(), t.effect, TAINT_EFFECTS));
  if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== 'NoExecute') {
    errs.push(fieldError.invalid(path.child('effect').toString(), t.effect ?? '', 'effect must be \'NoExecute\' when `tolerationSeconds` is set'));
  }
  return errs;
}

/** nodeSelector and tolerations, as the apiserver validates them on the pod. */
export function schedulingErrors(spec: V1PodSpec, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) {
    for (const m of qualifiedNameErrors(k)) errs.push(fieldError.invalid(path.child('nodeSelector').toString(), k, m));
    for (const m of labelValueErrors(v)) errs.push(fieldError.invalid(path.child('nodeSelector').index(k).toString(), v, m));
  }
  (spec.tolerations ?? []).forEach((t, i) => errs.push(...tolerationErrors(t, path.child('tolerations').index(i))));
  return errs;
}

/** Finalizers the apiserver accepts without a domain prefix. */
const STANDARD_FINALIZERS: readonly string[] = ['kubernetes', 'orphan', 'foregroundDeletion'];

/** Hook keys the controller writes or waits for on pods: valid finalizer and label names, or the hook never holds. */
export function lifecycleHookErrors(lifecycle: Lifecycle | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [hookName, hook] of Object.entries(lifecycle ?? {}) as [string, LifecycleHook | undefined][]) {
    if (!hook) continue;
    const p = path.child(hookName);
    (hook.finalizersHandler ?? []).forEach((f, i) => {
      const fp = p.child('finalizersHandler').index(i).toString();
      const nameErrs = qualifiedNameErrors(f);
      for (const m of nameErrs) errs.push(fieldError.invalid(fp, f, m));
      if (nameErrs.length === 0 && !f.includes('/') && !STANDARD_FINALIZERS.includes(f)) {
        errs.push(fieldError.invalid(fp, f, 'name is neither a standard finalizer name nor is it fully qualified'));
      }
    });
    for (const [k, v] of Object.entries(hook.labelsHandler ?? {})) {
      for (const m of qualifiedNameErrors(k)) errs.push(fieldError.invalid(p.child('labelsHandler').toString(), k, m));
      for (const m of labelValueErrors(v)) errs.push(fieldError.invalid(p.child('labelsHandler').index(k).toString(), v, m));
    }
  }
  return errs;
}
