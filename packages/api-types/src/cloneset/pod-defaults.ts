// The Kubernetes defaults the CloneSet mutating webhook injects into pod and PVC templates
// (OpenKruise's CloneSet defaulting webhook), plus kruise's own: a container without imagePullPolicy gets Always, so
// in-place image updates pull. Revisions hash the defaulted template, so these must stay stable.
// Each function mutates the object it is given: callers pass a copy.
import type {
  V1Container,
  V1ContainerPort,
  V1HTTPGetAction,
  V1LifecycleHandler,
  V1ObjectFieldSelector,
  V1PersistentVolumeClaim,
  V1PersistentVolumeClaimSpec,
  V1PodSpec,
  V1PodTemplateSpec,
  V1Probe,
  V1Volume,
  V1VolumeProjection,
} from '@kubernetes/client-node';

/** 0644, the default mode of secret, configMap, downwardAPI and projected volumes. */
const DEFAULT_FILE_MODE = 0o644;

function defaultFieldRef(ref: V1ObjectFieldSelector | undefined): void {
  if (ref && (ref.apiVersion === undefined || ref.apiVersion === '')) ref.apiVersion = 'v1';
}

function defaultHttpGet(action: V1HTTPGetAction | undefined): void {
  if (!action) return;
  if (action.path === undefined || action.path === '') action.path = '/';
  action.scheme ??= 'HTTP';
}

function defaultHandler(handler: V1LifecycleHandler | undefined): void {
  defaultHttpGet(handler?.httpGet);
}

function defaultProbe(probe: V1Probe | undefined): void {
  if (!probe) return;
  probe.timeoutSeconds ??= 1;
  probe.periodSeconds ??= 10;
  probe.successThreshold ??= 1;
  probe.failureThreshold ??= 3;
  defaultHttpGet(probe.httpGet);
  // grpc.service stays unset: kruise v1.8.4 stores `"service":null` (its Go default is "" only in OpenAPI).
}

function defaultPorts(ports: V1ContainerPort[] | undefined, hostNetwork: boolean): void {
  for (const port of ports ?? []) {
    if (port.protocol === undefined || port.protocol === '') port.protocol = 'TCP';
    if (hostNetwork && port.hostPort === undefined) port.hostPort = port.containerPort;
  }
}

function defaultContainer(container: V1Container, hostNetwork: boolean): void {
  // kruise sets Always before the Kubernetes default (IfNotPresent unless :latest) can apply.
  if (container.imagePullPolicy === undefined || container.imagePullPolicy === '') container.imagePullPolicy = 'Always';
  if (container.terminationMessagePath === undefined || container.terminationMessagePath === '') {
    container.terminationMessagePath = '/dev/termination-log';
  }
  if (container.terminationMessagePolicy === undefined || container.terminationMessagePolicy === '') {
    container.terminationMessagePolicy = 'File';
  }
  defaultPorts(container.ports, hostNetwork);
  for (const env of container.env ?? []) defaultFieldRef(env.valueFrom?.fieldRef);
  defaultProbe(container.livenessProbe);
  defaultProbe(container.readinessProbe);
  defaultProbe(container.startupProbe);
  defaultHandler(container.lifecycle?.postStart);
  defaultHandler(container.lifecycle?.preStop);
}

function defaultProjection(source: V1VolumeProjection): void {
  for (const item of source.downwardAPI?.items ?? []) defaultFieldRef(item.fieldRef);
}

function defaultVolume(volume: V1Volume): void {
  const sources = Object.keys(volume).filter((k) => k !== 'name');
  if (sources.length === 0) volume.emptyDir = {};
  if (volume.secret) volume.secret.defaultMode ??= DEFAULT_FILE_MODE;
  if (volume.configMap) volume.configMap.defaultMode ??= DEFAULT_FILE_MODE;
  if (volume.downwardAPI) {
    volume.downwardAPI.defaultMode ??= DEFAULT_FILE_MODE;
    for (const item of volume.downwardAPI.items ?? []) defaultFieldRef(item.fieldRef);
  }
  if (volume.projected) {
    volume.projected.defaultMode ??= DEFAULT_FILE_MODE;
    for (const source of volume.projected.sources ?? []) defaultProjection(source);
  }
  if (volume.hostPath) volume.hostPath.type ??= '';
  if (volume.iscsi) volume.iscsi.iscsiInterface ??= 'default';
  if (volume.rbd) {
    volume.rbd.pool ??= 'rbd';
    volume.rbd.user ??= 'admin';
    volume.rbd.keyring ??= '/etc/ceph/keyring';
  }
  if (volume.azureDisk) {
    volume.azureDisk.cachingMode ??= 'ReadWrite';
    volume.azureDisk.fsType ??= 'ext4';
    volume.azureDisk.readOnly ??= false;
    volume.azureDisk.kind ??= 'Shared';
  }
  const claimSpec = volume.ephemeral?.volumeClaimTemplate?.spec;
  if (claimSpec) defaultClaimSpec(claimSpec);
}

export function defaultPodSpec(spec: V1PodSpec): void {
  if (spec.dnsPolicy === undefined || spec.dnsPolicy === '') spec.dnsPolicy = 'ClusterFirst';
  if (spec.restartPolicy === undefined || spec.restartPolicy === '') spec.restartPolicy = 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  if (spec.schedulerName === undefined || spec.schedulerName === '') spec.schedulerName = 'default-scheduler';
  const hostNetwork = spec.hostNetwork === true;
  for (const c of spec.initContainers ?? []) defaultContainer(c, hostNetwork);
  // Raw objects may lack containers despite the type; validation reports that, defaults do not.
  for (const c of (spec.containers as V1Container[] | undefined) ?? []) defaultContainer(c, hostNetwork);
  for (const v of spec.volumes ?? []) defaultVolume(v);
}

/** Applies the template defaults in place. */
export function defaultPodTemplateInPlace(template: V1PodTemplateSpec): void {
  if (template.spec) defaultPodSpec(template.spec);
}

/** A defaulted copy of a pod template. */
export function defaultPodTemplate(template: V1PodTemplateSpec): V1PodTemplateSpec {
  const copy = structuredClone(template);
  defaultPodTemplateInPlace(copy);
  return copy;
}

function defaultClaimSpec(spec: V1PersistentVolumeClaimSpec): void {
  if (spec.volumeMode === undefined || spec.volumeMode === '') spec.volumeMode = 'Filesystem';
}

/**
 * Applies the VolumeClaimTemplate defaults in place: status.phase Pending only. Kruise v1.8.4's
 * webhook leaves volumeMode unset in VCTs (the PVC's own admission sets it later), and the
 * same manifest must store the same CloneSet under either controller.
 */
export function defaultPersistentVolumeClaimInPlace(claim: V1PersistentVolumeClaim): void {
  claim.spec ??= {};
  claim.status ??= {};
  if (claim.status.phase === undefined || claim.status.phase === '') claim.status.phase = 'Pending';
}
