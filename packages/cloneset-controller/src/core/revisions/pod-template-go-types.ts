// The JSON shape of the Go types OpenKruise v1.8.4 decodes a pod template into (k8s.io/api and
// apimachinery v0.30, kruise's go.mod), as data: for each struct, its fields in Go order as
// `jsonName:kind`, a trailing `?` marking `omitempty`. Kinds: `s` string, `i` integer, `b` bool,
// `q` resource.Quantity, `ios` IntOrString, `t` metav1.Time, `raw` opaque JSON (FieldsV1), `*X`
// pointer to X, `[]X` slice, `{}X` map from string, any other name a struct of this table.
// Inline (embedded) structs are flattened. Fields absent here are unknown to kruise's types and
// dropped from revision data, as kruise's decoder drops them; fields added to Kubernetes after
// v0.30 (e.g. pod-level `resources`) are therefore not part of a revision, in kruise or here.
export const POD_TEMPLATE_GO_TYPES: Readonly<Record<string, string>> = {
  PodTemplateSpec: 'metadata:ObjectMeta? spec:PodSpec?',
  ObjectMeta:
    'name:s? generateName:s? namespace:s? selfLink:s? uid:s? resourceVersion:s? generation:i? ' +
    'creationTimestamp:t? deletionTimestamp:*t? deletionGracePeriodSeconds:*i? labels:{}s? ' +
    'annotations:{}s? ownerReferences:[]OwnerReference? finalizers:[]s? ' +
    'managedFields:[]ManagedFieldsEntry?',
  PodSpec:
    'volumes:[]Volume? initContainers:[]Container? containers:[]Container ' +
    'ephemeralContainers:[]EphemeralContainer? restartPolicy:s? terminationGracePeriodSeconds:*i? ' +
    'activeDeadlineSeconds:*i? dnsPolicy:s? nodeSelector:{}s? serviceAccountName:s? serviceAccount:s? ' +
    'automountServiceAccountToken:*b? nodeName:s? hostNetwork:b? hostPID:b? hostIPC:b? ' +
    'shareProcessNamespace:*b? securityContext:*PodSecurityContext? ' +
    'imagePullSecrets:[]LocalObjectReference? hostname:s? subdomain:s? affinity:*Affinity? ' +
    'schedulerName:s? tolerations:[]Toleration? hostAliases:[]HostAlias? priorityClassName:s? ' +
    'priority:*i? dnsConfig:*PodDNSConfig? readinessGates:[]PodReadinessGate? runtimeClassName:*s? ' +
    'enableServiceLinks:*b? preemptionPolicy:*s? overhead:{}q? ' +
    'topologySpreadConstraints:[]TopologySpreadConstraint? setHostnameAsFQDN:*b? os:*PodOS? hostUsers:*b? ' +
    'schedulingGates:[]PodSchedulingGate? resourceClaims:[]PodResourceClaim?',
  Container:
    'name:s image:s? command:[]s? args:[]s? workingDir:s? ports:[]ContainerPort? envFrom:[]EnvFromSource? ' +
    'env:[]EnvVar? resources:ResourceRequirements? resizePolicy:[]ContainerResizePolicy? ' +
    'restartPolicy:*s? volumeMounts:[]VolumeMount? volumeDevices:[]VolumeDevice? livenessProbe:*Probe? ' +
    'readinessProbe:*Probe? startupProbe:*Probe? lifecycle:*Lifecycle? terminationMessagePath:s? ' +
    'terminationMessagePolicy:s? imagePullPolicy:s? securityContext:*SecurityContext? stdin:b? ' +
    'stdinOnce:b? tty:b?',
  AWSElasticBlockStoreVolumeSource: 'volumeID:s fsType:s? partition:i? readOnly:b?',
  Affinity: 'nodeAffinity:*NodeAffinity? podAffinity:*PodAffinity? podAntiAffinity:*PodAntiAffinity?',
  AppArmorProfile: 'type:s localhostProfile:*s?',
  AzureDiskVolumeSource: 'diskName:s diskURI:s cachingMode:*s? fsType:*s? readOnly:*b? kind:*s?',
  AzureFileVolumeSource: 'secretName:s shareName:s readOnly:b?',
  CSIVolumeSource:
    'driver:s readOnly:*b? fsType:*s? volumeAttributes:{}s? nodePublishSecretRef:*LocalObjectReference?',
  Capabilities: 'add:[]s? drop:[]s?',
  CephFSVolumeSource: 'monitors:[]s path:s? user:s? secretFile:s? secretRef:*LocalObjectReference? readOnly:b?',
  CinderVolumeSource: 'volumeID:s fsType:s? readOnly:b? secretRef:*LocalObjectReference?',
  ClaimSource: 'resourceClaimName:*s? resourceClaimTemplateName:*s?',
  ClusterTrustBundleProjection: 'name:*s? signerName:*s? labelSelector:*LabelSelector? optional:*b? path:s',
  ConfigMapEnvSource: 'name:s? optional:*b?',
  ConfigMapKeySelector: 'name:s? key:s optional:*b?',
  ConfigMapProjection: 'name:s? items:[]KeyToPath? optional:*b?',
  ConfigMapVolumeSource: 'name:s? items:[]KeyToPath? defaultMode:*i? optional:*b?',
  ContainerPort: 'name:s? hostPort:i? containerPort:i protocol:s? hostIP:s?',
  ContainerResizePolicy: 'resourceName:s restartPolicy:s',
  DownwardAPIProjection: 'items:[]DownwardAPIVolumeFile?',
  DownwardAPIVolumeFile: 'path:s fieldRef:*ObjectFieldSelector? resourceFieldRef:*ResourceFieldSelector? mode:*i?',
  DownwardAPIVolumeSource: 'items:[]DownwardAPIVolumeFile? defaultMode:*i?',
  EmptyDirVolumeSource: 'medium:s? sizeLimit:*q?',
  EnvFromSource: 'prefix:s? configMapRef:*ConfigMapEnvSource? secretRef:*SecretEnvSource?',
  EnvVar: 'name:s value:s? valueFrom:*EnvVarSource?',
  EnvVarSource:
    'fieldRef:*ObjectFieldSelector? resourceFieldRef:*ResourceFieldSelector? ' +
    'configMapKeyRef:*ConfigMapKeySelector? secretKeyRef:*SecretKeySelector?',
  EphemeralContainer:
    'name:s image:s? command:[]s? args:[]s? workingDir:s? ports:[]ContainerPort? envFrom:[]EnvFromSource? ' +
    'env:[]EnvVar? resources:ResourceRequirements? resizePolicy:[]ContainerResizePolicy? ' +
    'restartPolicy:*s? volumeMounts:[]VolumeMount? volumeDevices:[]VolumeDevice? livenessProbe:*Probe? ' +
    'readinessProbe:*Probe? startupProbe:*Probe? lifecycle:*Lifecycle? terminationMessagePath:s? ' +
    'terminationMessagePolicy:s? imagePullPolicy:s? securityContext:*SecurityContext? stdin:b? ' +
    'stdinOnce:b? tty:b? targetContainerName:s?',
  EphemeralVolumeSource: 'volumeClaimTemplate:*PersistentVolumeClaimTemplate?',
  ExecAction: 'command:[]s?',
  FCVolumeSource: 'targetWWNs:[]s? lun:*i? fsType:s? readOnly:b? wwids:[]s?',
  FlexVolumeSource: 'driver:s fsType:s? secretRef:*LocalObjectReference? readOnly:b? options:{}s?',
  FlockerVolumeSource: 'datasetName:s? datasetUUID:s?',
  GCEPersistentDiskVolumeSource: 'pdName:s fsType:s? partition:i? readOnly:b?',
  GRPCAction: 'port:i service:*s',
  GitRepoVolumeSource: 'repository:s revision:s? directory:s?',
  GlusterfsVolumeSource: 'endpoints:s path:s readOnly:b?',
  HTTPGetAction: 'path:s? port:ios host:s? scheme:s? httpHeaders:[]HTTPHeader?',
  HTTPHeader: 'name:s value:s',
  HostAlias: 'ip:s hostnames:[]s?',
  HostPathVolumeSource: 'path:s type:*s?',
  ISCSIVolumeSource:
    'targetPortal:s iqn:s lun:i iscsiInterface:s? fsType:s? readOnly:b? portals:[]s? chapAuthDiscovery:b? ' +
    'chapAuthSession:b? secretRef:*LocalObjectReference? initiatorName:*s?',
  KeyToPath: 'key:s path:s mode:*i?',
  LabelSelector: 'matchLabels:{}s? matchExpressions:[]LabelSelectorRequirement?',
  LabelSelectorRequirement: 'key:s operator:s values:[]s?',
  Lifecycle: 'postStart:*LifecycleHandler? preStop:*LifecycleHandler?',
  LifecycleHandler: 'exec:*ExecAction? httpGet:*HTTPGetAction? tcpSocket:*TCPSocketAction? sleep:*SleepAction?',
  LocalObjectReference: 'name:s?',
  ManagedFieldsEntry: 'manager:s? operation:s? apiVersion:s? time:*t? fieldsType:s? fieldsV1:*raw? subresource:s?',
  NFSVolumeSource: 'server:s path:s readOnly:b?',
  NodeAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution:*NodeSelector? ' +
    'preferredDuringSchedulingIgnoredDuringExecution:[]PreferredSchedulingTerm?',
  NodeSelector: 'nodeSelectorTerms:[]NodeSelectorTerm',
  NodeSelectorRequirement: 'key:s operator:s values:[]s?',
  NodeSelectorTerm: 'matchExpressions:[]NodeSelectorRequirement? matchFields:[]NodeSelectorRequirement?',
  ObjectFieldSelector: 'apiVersion:s? fieldPath:s',
  OwnerReference: 'apiVersion:s kind:s name:s uid:s controller:*b? blockOwnerDeletion:*b?',
  PersistentVolumeClaimSpec:
    'accessModes:[]s? selector:*LabelSelector? resources:VolumeResourceRequirements? volumeName:s? ' +
    'storageClassName:*s? volumeMode:*s? dataSource:*TypedLocalObjectReference? ' +
    'dataSourceRef:*TypedObjectReference? volumeAttributesClassName:*s?',
  PersistentVolumeClaimTemplate: 'metadata:ObjectMeta? spec:PersistentVolumeClaimSpec',
  PersistentVolumeClaimVolumeSource: 'claimName:s readOnly:b?',
  PhotonPersistentDiskVolumeSource: 'pdID:s fsType:s?',
  PodAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution:[]PodAffinityTerm? ' +
    'preferredDuringSchedulingIgnoredDuringExecution:[]WeightedPodAffinityTerm?',
  PodAffinityTerm:
    'labelSelector:*LabelSelector? namespaces:[]s? topologyKey:s namespaceSelector:*LabelSelector? ' +
    'matchLabelKeys:[]s? mismatchLabelKeys:[]s?',
  PodAntiAffinity:
    'requiredDuringSchedulingIgnoredDuringExecution:[]PodAffinityTerm? ' +
    'preferredDuringSchedulingIgnoredDuringExecution:[]WeightedPodAffinityTerm?',
  PodDNSConfig: 'nameservers:[]s? searches:[]s? options:[]PodDNSConfigOption?',
  PodDNSConfigOption: 'name:s? value:*s?',
  PodOS: 'name:s',
  PodReadinessGate: 'conditionType:s',
  PodResourceClaim: 'name:s source:ClaimSource?',
  PodSchedulingGate: 'name:s',
  PodSecurityContext:
    'seLinuxOptions:*SELinuxOptions? windowsOptions:*WindowsSecurityContextOptions? runAsUser:*i? ' +
    'runAsGroup:*i? runAsNonRoot:*b? supplementalGroups:[]i? fsGroup:*i? sysctls:[]Sysctl? ' +
    'fsGroupChangePolicy:*s? seccompProfile:*SeccompProfile? appArmorProfile:*AppArmorProfile?',
  PortworxVolumeSource: 'volumeID:s fsType:s? readOnly:b?',
  PreferredSchedulingTerm: 'weight:i preference:NodeSelectorTerm',
  Probe:
    'exec:*ExecAction? httpGet:*HTTPGetAction? tcpSocket:*TCPSocketAction? grpc:*GRPCAction? ' +
    'initialDelaySeconds:i? timeoutSeconds:i? periodSeconds:i? successThreshold:i? failureThreshold:i? ' +
    'terminationGracePeriodSeconds:*i?',
  ProjectedVolumeSource: 'sources:[]VolumeProjection defaultMode:*i?',
  QuobyteVolumeSource: 'registry:s volume:s readOnly:b? user:s? group:s? tenant:s?',
  RBDVolumeSource:
    'monitors:[]s image:s fsType:s? pool:s? user:s? keyring:s? secretRef:*LocalObjectReference? ' +
    'readOnly:b?',
  ResourceClaim: 'name:s',
  ResourceFieldSelector: 'containerName:s? resource:s divisor:q?',
  ResourceRequirements: 'limits:{}q? requests:{}q? claims:[]ResourceClaim?',
  SELinuxOptions: 'user:s? role:s? type:s? level:s?',
  ScaleIOVolumeSource:
    'gateway:s system:s secretRef:*LocalObjectReference sslEnabled:b? protectionDomain:s? storagePool:s? ' +
    'storageMode:s? volumeName:s? fsType:s? readOnly:b?',
  SeccompProfile: 'type:s localhostProfile:*s?',
  SecretEnvSource: 'name:s? optional:*b?',
  SecretKeySelector: 'name:s? key:s optional:*b?',
  SecretProjection: 'name:s? items:[]KeyToPath? optional:*b?',
  SecretVolumeSource: 'secretName:s? items:[]KeyToPath? defaultMode:*i? optional:*b?',
  SecurityContext:
    'capabilities:*Capabilities? privileged:*b? seLinuxOptions:*SELinuxOptions? ' +
    'windowsOptions:*WindowsSecurityContextOptions? runAsUser:*i? runAsGroup:*i? runAsNonRoot:*b? ' +
    'readOnlyRootFilesystem:*b? allowPrivilegeEscalation:*b? procMount:*s? ' +
    'seccompProfile:*SeccompProfile? appArmorProfile:*AppArmorProfile?',
  ServiceAccountTokenProjection: 'audience:s? expirationSeconds:*i? path:s',
  SleepAction: 'seconds:i',
  StorageOSVolumeSource: 'volumeName:s? volumeNamespace:s? fsType:s? readOnly:b? secretRef:*LocalObjectReference?',
  Sysctl: 'name:s value:s',
  TCPSocketAction: 'port:ios host:s?',
  Toleration: 'key:s? operator:s? value:s? effect:s? tolerationSeconds:*i?',
  TopologySpreadConstraint:
    'maxSkew:i topologyKey:s whenUnsatisfiable:s labelSelector:*LabelSelector? minDomains:*i? ' +
    'nodeAffinityPolicy:*s? nodeTaintsPolicy:*s? matchLabelKeys:[]s?',
  TypedLocalObjectReference: 'apiGroup:*s kind:s name:s',
  TypedObjectReference: 'apiGroup:*s kind:s name:s namespace:*s?',
  Volume:
    'name:s hostPath:*HostPathVolumeSource? emptyDir:*EmptyDirVolumeSource? ' +
    'gcePersistentDisk:*GCEPersistentDiskVolumeSource? ' +
    'awsElasticBlockStore:*AWSElasticBlockStoreVolumeSource? gitRepo:*GitRepoVolumeSource? ' +
    'secret:*SecretVolumeSource? nfs:*NFSVolumeSource? iscsi:*ISCSIVolumeSource? ' +
    'glusterfs:*GlusterfsVolumeSource? persistentVolumeClaim:*PersistentVolumeClaimVolumeSource? ' +
    'rbd:*RBDVolumeSource? flexVolume:*FlexVolumeSource? cinder:*CinderVolumeSource? ' +
    'cephfs:*CephFSVolumeSource? flocker:*FlockerVolumeSource? downwardAPI:*DownwardAPIVolumeSource? ' +
    'fc:*FCVolumeSource? azureFile:*AzureFileVolumeSource? configMap:*ConfigMapVolumeSource? ' +
    'vsphereVolume:*VsphereVirtualDiskVolumeSource? quobyte:*QuobyteVolumeSource? ' +
    'azureDisk:*AzureDiskVolumeSource? photonPersistentDisk:*PhotonPersistentDiskVolumeSource? ' +
    'projected:*ProjectedVolumeSource? portworxVolume:*PortworxVolumeSource? ' +
    'scaleIO:*ScaleIOVolumeSource? storageos:*StorageOSVolumeSource? csi:*CSIVolumeSource? ' +
    'ephemeral:*EphemeralVolumeSource?',
  VolumeDevice: 'name:s devicePath:s',
  VolumeMount: 'name:s readOnly:b? recursiveReadOnly:*s? mountPath:s subPath:s? mountPropagation:*s? subPathExpr:s?',
  VolumeProjection:
    'secret:*SecretProjection? downwardAPI:*DownwardAPIProjection? configMap:*ConfigMapProjection? ' +
    'serviceAccountToken:*ServiceAccountTokenProjection? ' +
    'clusterTrustBundle:*ClusterTrustBundleProjection?',
  VolumeResourceRequirements: 'limits:{}q? requests:{}q?',
  VsphereVirtualDiskVolumeSource: 'volumePath:s fsType:s? storagePolicyName:s? storagePolicyID:s?',
  WeightedPodAffinityTerm: 'weight:i podAffinityTerm:PodAffinityTerm',
  WindowsSecurityContextOptions:
    'gmsaCredentialSpecName:*s? gmsaCredentialSpec:*s? runAsUserName:*s? hostProcess:*b?',
};
