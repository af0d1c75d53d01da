// A CloneSet as the apiserver serves it to a conversion webhook, at the size of a production
// service rather than a test fixture: two containers (the app with 20 environment variables,
// probes, resources, mounts; a log sidecar), volumes, affinity and tolerations, kubectl's
// last-applied annotation (a second copy of the spec), managedFields of kubectl and of the
// controller's status writes, and a status with conditions.

function appContainer(name: string): Record<string, unknown> {
  return {
    name,
    image: `registry.example.com/team/${name}:v1.42.7-20240611-8f3c2d1`,
    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }, { name: 'metrics', containerPort: 9090, protocol: 'TCP' }],
    env: Array.from({ length: 20 }, (_, i) => ({ name: `APP_SETTING_${i}_NAME`, value: `value-of-setting-${i}-for-the-service` })),
    resources: { limits: { cpu: '2', memory: '2Gi' }, requests: { cpu: '500m', memory: '1Gi' } },
    readinessProbe: { httpGet: { path: '/ready', port: 'http', scheme: 'HTTP' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app' }, { name: 'data', mountPath: '/var/lib/app' }],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  };
}

function spec(name: string): Record<string, unknown> {
  return {
    replicas: 10,
    revisionHistoryLimit: 10,
    selector: { matchLabels: { app: name } },
    scaleStrategy: { maxUnavailable: 1 },
    updateStrategy: { type: 'InPlaceIfPossible', partition: 0, maxUnavailable: '20%', maxSurge: 0, inPlaceUpdateStrategy: { gracePeriodSeconds: 10 } },
    template: {
      metadata: { labels: { app: name, team: 'payments', tier: 'backend' }, annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' } },
      spec: {
        containers: [
          appContainer(name),
          { name: 'log-shipper', image: 'registry.example.com/infra/log-shipper:2.3.1', resources: { limits: { cpu: '200m', memory: '256Mi' }, requests: { cpu: '50m', memory: '64Mi' } }, volumeMounts: [{ name: 'data', mountPath: '/var/lib/app', readOnly: true }] },
        ],
        volumes: [{ name: 'config', configMap: { name: `${name}-config`, defaultMode: 420 } }, { name: 'data', emptyDir: {} }],
        affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: name } } } }] } },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'payments', effect: 'NoSchedule' }],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        schedulerName: 'default-scheduler',
        securityContext: { runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001 },
      },
    },
  };
}

/** The field paths of an object as managedFields' fieldsV1 lists them ("f:name": {}). */
function fieldsV1(value: unknown): unknown {
  if (Array.isArray(value)) return Object.fromEntries(value.map((v, i) => [`k:{"name":"item-${i}"}`, fieldsV1(v)]));
  if (typeof value === 'object' && value !== null) return { '.': {}, ...Object.fromEntries(Object.entries(value).map(([k, v]) => [`f:${k}`, fieldsV1(v)])) };
  return {};
}

export function servedCloneSet(name: string, namespace = 'payments'): Record<string, unknown> {
  const s = spec(name);
  const status = {
    observedGeneration: 7,
    replicas: 10,
    readyReplicas: 10,
    availableReplicas: 10,
    updatedReplicas: 10,
    updatedReadyReplicas: 10,
    expectedUpdatedReplicas: 10,
    updateRevision: `${name}-5d8f7c9b64`,
    currentRevision: `${name}-5d8f7c9b64`,
    collisionCount: 0,
    labelSelector: `app=${name}`,
    conditions: [{ type: 'Progressing', status: 'True', reason: 'CloneSetAvailable', message: 'CloneSet has been available', lastTransitionTime: '2024-06-11T10:00:00Z', lastUpdateTime: '2024-06-11T10:00:00Z' }],
  };
  const time = '2024-06-11T10:00:00Z';
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: {
      name,
      namespace,
      uid: '6b1f0c8e-2d4a-4f5b-9c3e-7a8d9e0f1a2b',
      resourceVersion: '123456789',
      generation: 7,
      creationTimestamp: time,
      labels: { app: name, team: 'payments' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name, namespace, labels: { app: name, team: 'payments' } }, spec: s }) },
      managedFields: [
        { manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'apps.kruise.io/v1alpha1', time, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': fieldsV1({ labels: {}, annotations: {} }), 'f:spec': fieldsV1(s) } },
        { manager: 'cloneset-suite-controller-manager', operation: 'Update', apiVersion: 'apps.kruise.io/v1alpha1', time, fieldsType: 'FieldsV1', fieldsV1: { 'f:status': fieldsV1(status) }, subresource: 'status' },
      ],
    },
    spec: s,
    status,
  };
}
