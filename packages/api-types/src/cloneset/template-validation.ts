// The part of Kubernetes' core PodTemplateSpec validation that a webhook can do without the
// apiserver's internals, plus kruise's CloneSet-specific template rules (its validating webhook).
// Volume claim template names count as volumes, so mounts that reference them validate.
import type { IntOrString, V1Container, V1PodTemplateSpec, V1Probe, V1ResourceRequirements } from '@kubernetes/client-node';
import { fieldError, type FieldError, type FieldPath } from '../field-errors.ts';
import { dns1123LabelErrors, ianaServiceNameErrors, labelValueErrors, qualifiedNameErrors } from '../names.ts';
import { QUANTITY_PATTERN, parseQuantity } from '../quantity.ts';
import { schedulingErrors, volumeSourceErrors } from './apiserver-rules.ts';

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
  const portNames = new Set<string>();
  (c.ports ?? []).forEach((port, i) => {
    const p = path.child('ports').index(i);
    if (port.name !== undefined && port.name !== '') {
      for (const m of ianaServiceNameErrors(port.name)) errs.push(fieldError.invalid(p.child('name').toString(), port.name, m));
      if (portNames.has(port.name)) errs.push(fieldError.duplicate(p.child('name').toString(), port.name));
      portNames.add(port.name);
    }
    if (!Number.isInteger(port.containerPort) || port.containerPort < 1 || port.containerPort > 65535) {
      errs.push(fieldError.invalid(p.child('containerPort').toString(), port.containerPort, 'must be between 1 and 65535, inclusive'));
    }
    if (port.protocol !== undefined && !(PROTOCOLS as readonly string[]).includes(port.protocol)) {
      errs.push(fieldError.notSupported(p.child('protocol').toString(), port.protocol, PROTOCOLS));
    }
  });
  (c.env ?? []).forEach((env, i) => {
    const p = path.child('env').index(i).child('name');
    if (typeof env.name !== 'string' || env.name === '') errs.push(fieldError.required(p.toString()));
    // Kubernetes >= 1.34 (RelaxedEnvironmentVariableValidation): any printable ASCII but '='.
    else if (!/^[\x20-\x3c\x3e-\x7e]+$/.test(env.name)) {
      errs.push(fieldError.invalid(p.toString(), env.name, "a valid environment variable name must consist only of printable ASCII characters other than '='"));
    }
  });
  validateResources(c.resources, path.child('resources'), errs);
  for (const kind of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) validateProbe(c[kind], kind, path.child(kind), errs);
  (c.volumeMounts ?? []).forEach((mount, i) => {
    const p = path.child('volumeMounts').index(i);
    if (!volumes.has(mount.name)) errs.push(fieldError.invalid(p.child('name').toString(), mount.name, 'volume not found'));
    if (typeof mount.mountPath !== 'string' || mount.mountPath === '') errs.push(fieldError.required(p.child('mountPath').toString()));
  });
}

const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;

/** A port given by number (1-65535) or by name (IANA service name). */
function validatePortRef(port: IntOrString | undefined, path: FieldPath, errs: FieldError[]): void {
  if (port === undefined) errs.push(fieldError.required(path.toString()));
  else if (typeof port === 'number') {
    if (!Number.isInteger(port) || port < 1 || port > 65535) errs.push(fieldError.invalid(path.toString(), port, 'must be between 1 and 65535, inclusive'));
  } else for (const m of ianaServiceNameErrors(port)) errs.push(fieldError.invalid(path.toString(), port, m));
}

/** One handler, non-negative timings, and successThreshold 1 where only 1 makes sense. */
function validateProbe(probe: V1Probe | undefined, kind: 'livenessProbe' | 'readinessProbe' | 'startupProbe', path: FieldPath, errs: FieldError[]): void {
  if (probe === undefined || probe === null) return;
  const handlers = PROBE_HANDLERS.filter((h) => probe[h] !== undefined && probe[h] !== null);
  if (handlers.length === 0) errs.push(fieldError.required(path.toString(), 'must specify a handler type'));
  for (const extra of handlers.slice(1)) errs.push(fieldError.forbidden(path.child(extra).toString(), 'may not specify more than 1 handler type'));
  if (probe.httpGet) validatePortRef(probe.httpGet.port, path.child('httpGet').child('port'), errs);
  if (probe.tcpSocket) validatePortRef(probe.tcpSocket.port, path.child('tcpSocket').child('port'), errs);
  for (const field of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const) {
    const v = probe[field];
    if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 0)) errs.push(fieldError.invalid(path.child(field).toString(), v, 'must be greater than or equal to 0'));
  }
  if (kind !== 'readinessProbe' && probe.successThreshold !== undefined && probe.successThreshold !== null && probe.successThreshold !== 1) {
    errs.push(fieldError.invalid(path.child('successThreshold').toString(), probe.successThreshold, 'must be 1'));
  }
}

/** Quantities that parse, are not negative, and requests that do not exceed their limits. */
function validateResources(resources: V1ResourceRequirements | undefined, path: FieldPath, errs: FieldError[]): void {
  const read = (kind: 'limits' | 'requests'): Map<string, number> => {
    const values = new Map<string, number>();
    for (const [name, raw] of Object.entries(resources?.[kind] ?? {})) {
      const p = path.child(kind).index(name).toString();
      const text = String(raw);
      const value = parseQuantity(text);
      if (value === undefined) errs.push(fieldError.invalid(p, text, `quantities must match the regular expression '${QUANTITY_PATTERN}'`));
      else if (value < 0) errs.push(fieldError.invalid(p, text, 'must be greater than or equal to 0'));
      else values.set(name, value);
    }
    return values;
  };
  const limits = read('limits');
  const requests = read('requests');
  for (const [name, request] of requests) {
    const limit = limits.get(name);
    if (limit !== undefined && request > limit) {
      errs.push(fieldError.invalid(path.child('requests').index(name).toString(), String(resources?.requests?.[name]), `must be less than or equal to ${name} limit of ${String(resources?.limits?.[name])}`));
    }
  }
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
    errs.push(...volumeSourceErrors(v, p));
  });
  errs.push(...schedulingErrors(spec, specPath));
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
