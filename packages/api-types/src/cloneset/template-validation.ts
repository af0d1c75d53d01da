// The part of Kubernetes' core PodTemplateSpec validation that a webhook can do without the
// apiserver's internals, plus kruise's CloneSet-specific template rules (cloneset.md §1.8).
// Volume claim template names count as volumes, so mounts that reference them validate.
import type { V1Container, V1PodTemplateSpec } from '@kubernetes/client-node';
import { fieldError, type FieldError, type FieldPath } from '../field-errors.ts';
import { dns1123LabelErrors, labelValueErrors, qualifiedNameErrors } from '../names.ts';

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;

function validateLabels(labels: Record<string, string> | undefined, path: FieldPath, errs: FieldError[]): void {
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const m of qualifiedNameErrors(k)) errs.push(fieldError.invalid(path.toString(), k, m));
    for (const m of labelValueErrors(v)) errs.push(fieldError.invalid(path.index(k).toString(), v, m));
  }
}

function validateContainer(c: V1Container, path: FieldPath, volumes: ReadonlySet<string>, errs: FieldError[]): void {
  if (typeof c.name !== 'string' || c.name === '') errs.push(fieldError.required(path.child('name').toString()));
  else for (const m of dns1123LabelErrors(c.name)) errs.push(fieldError.invalid(path.child('name').toString(), c.name, m));
  if (typeof c.image !== 'string' || c.image.trim() === '') errs.push(fieldError.required(path.child('image').toString()));
  if (c.imagePullPolicy !== undefined && !(PULL_POLICIES as readonly string[]).includes(c.imagePullPolicy)) {
    errs.push(fieldError.notSupported(path.child('imagePullPolicy').toString(), c.imagePullPolicy, PULL_POLICIES));
  }
  (c.ports ?? []).forEach((port, i) => {
    const p = path.child('ports').index(i);
    if (!Number.isInteger(port.containerPort) || port.containerPort < 1 || port.containerPort > 65535) {
      errs.push(fieldError.invalid(p.child('containerPort').toString(), port.containerPort, 'must be between 1 and 65535, inclusive'));
    }
    if (port.protocol !== undefined && !(PROTOCOLS as readonly string[]).includes(port.protocol)) {
      errs.push(fieldError.notSupported(p.child('protocol').toString(), port.protocol, PROTOCOLS));
    }
  });
  (c.volumeMounts ?? []).forEach((mount, i) => {
    const p = path.child('volumeMounts').index(i);
    if (!volumes.has(mount.name)) errs.push(fieldError.invalid(p.child('name').toString(), mount.name, 'volume not found'));
    if (typeof mount.mountPath !== 'string' || mount.mountPath === '') errs.push(fieldError.required(p.child('mountPath').toString()));
  });
}

/** Errors of a CloneSet pod template; `claimNames` are the volumeClaimTemplates' names. */
export function validateCloneSetTemplate(
  template: V1PodTemplateSpec | undefined,
  path: FieldPath,
  claimNames: readonly string[],
): FieldError[] {
  const errs: FieldError[] = [];
  if (template === undefined || template === null) return [fieldError.required(path.toString())];
  validateLabels(template.metadata?.labels, path.child('metadata').child('labels'), errs);
  for (const k of Object.keys(template.metadata?.annotations ?? {})) {
    for (const m of qualifiedNameErrors(k)) errs.push(fieldError.invalid(path.child('metadata').child('annotations').toString(), k, m));
  }
  const spec = template.spec;
  const specPath = path.child('spec');
  if (spec === undefined || spec === null) return [...errs, fieldError.required(specPath.toString())];

  // kruise's own rules first: they are the ones users hit.
  if (spec.restartPolicy !== undefined && spec.restartPolicy !== 'Always') {
    errs.push(fieldError.notSupported(specPath.child('restartPolicy').toString(), spec.restartPolicy, ['Always']));
  }
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    errs.push(fieldError.forbidden(specPath.child('activeDeadlineSeconds').toString(), 'activeDeadlineSeconds in cloneset is not Supported'));
  }

  const volumes = new Set<string>();
  (spec.volumes ?? []).forEach((v, i) => {
    const p = specPath.child('volumes').index(i);
    if (typeof v.name !== 'string' || v.name === '') errs.push(fieldError.required(p.child('name').toString()));
    else {
      for (const m of dns1123LabelErrors(v.name)) errs.push(fieldError.invalid(p.child('name').toString(), v.name, m));
      if (volumes.has(v.name)) errs.push(fieldError.duplicate(p.child('name').toString(), v.name));
      volumes.add(v.name);
    }
  });
  for (const name of claimNames) volumes.add(name);

  const containers = (spec.containers as V1Container[] | undefined) ?? [];
  if (containers.length === 0) errs.push(fieldError.required(specPath.child('containers').toString(), 'must have at least one container'));
  const names = new Set<string>();
  const all: [V1Container, FieldPath][] = [
    ...(spec.initContainers ?? []).map((c, i): [V1Container, FieldPath] => [c, specPath.child('initContainers').index(i)]),
    ...containers.map((c, i): [V1Container, FieldPath] => [c, specPath.child('containers').index(i)]),
  ];
  for (const [c, p] of all) {
    validateContainer(c, p, volumes, errs);
    if (typeof c.name === 'string' && c.name !== '') {
      if (names.has(c.name)) errs.push(fieldError.duplicate(p.child('name').toString(), c.name));
      names.add(c.name);
    }
  }
  return errs;
}
