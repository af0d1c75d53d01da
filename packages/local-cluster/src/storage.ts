// The default StorageClass: kube-controller-manager's hostPath provisioner (enabled by the
// cluster script) binds every new claim to a fresh PersistentVolume.
import { stringify } from 'yaml';

export const defaultStorageClassName = 'standard';
/** Named by OpenKruise's PVC-template sample (seed 002), so it applies unchanged. */
export const sampleStorageClassName = 'nfs-storage';

export function storageClassManifest(): string {
  return [defaultStorageClassName, sampleStorageClassName]
    .map((name) =>
      stringify({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: {
          name,
          ...(name === defaultStorageClassName ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}),
        },
        provisioner: 'kubernetes.io/host-path',
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'Immediate',
      }),
    )
    .join('---\n');
}
