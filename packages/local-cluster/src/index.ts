export { startCluster, stopCluster, restartComponent, waitForWorkingControlPlane, describeComponents, PROBE_NAMESPACE_PREFIX, isClusterReady, kubectl } from './cluster.ts';
export type { StartClusterOptions, ClusterHandle, ComponentName } from './cluster.ts';
export { ensureBinaries, controlPlaneBinaries } from './binaries.ts';
export { kubeconfigPath, testKubeconfigPath, usingExternalCluster, repoRoot, clusterName } from './paths.ts';
export { zones, nodeName } from './nodes.ts';
export { defaultStorageClassName, sampleStorageClassName } from './storage.ts';
export { getJson, eventually, createTestNamespace, freePort } from './testing.ts';
export { firstByteDifference, kruiseRevisionsPath, loadKruiseRevisions, revisionDataBytes, toExactJson } from './kruise-testdata.ts';
export type { KruiseCloneSet, KruiseRevisionEntry } from './kruise-testdata.ts';
