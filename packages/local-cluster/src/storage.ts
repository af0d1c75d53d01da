// The default StorageClass: kube-controller-manager's hostPath provisioner (enabled by the
// cluster script) binds every new claim to a fresh PersistentVolume.
import { stringify } from 'yaml';

export const defaultStorageClassName = 'standard';

export function storageClassManifest(): string {
  return stringify({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: {
      name: defaultStorageClassName,
      annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
    },
    provisioner: 'kubernetes.io/host-path',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
  });
}
