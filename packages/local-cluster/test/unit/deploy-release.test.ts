import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { APISERVER_HOSTNAME, apiserverPort, gatewayOf, pointDeploymentsAtApiserver } from '../../src/deploy/apiserver-access.ts';
import { contentTag, releaseValues, splitImageRef } from '../../src/deploy/release-values.ts';
import { REAL_NODE_LABEL, REAL_NODE_TAINT } from '../../src/real-node/config.ts';

const rendered = `---
apiVersion: v1
kind: Service
metadata: {name: cloneset-suite-webhook}
spec: {ports: [{port: 443}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cloneset-suite-controller-manager}
spec:
  template:
    spec:
      containers:
        - name: manager
          env:
            - {name: POD_NAMESPACE, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}
            - {name: KUBERNETES_SERVICE_PORT, value: "443"}
`;

describe('the local release', () => {
  it('runs two replicas on the real node from the imported image, never pulled', () => {
    expect(releaseValues({ repository: 'localhost/cloneset-suite/controller-manager', tag: 'local-0123456789ab' })).toEqual({
      replicaCount: 2,
      image: { repository: 'localhost/cloneset-suite/controller-manager', tag: 'local-0123456789ab', pullPolicy: 'Never' },
      nodeSelector: { [REAL_NODE_LABEL]: 'true' },
      tolerations: [{ key: REAL_NODE_TAINT.key, operator: 'Equal', value: 'true', effect: 'NoSchedule' }],
    });
  });

  it.each([
    ['localhost/cloneset-suite/controller-manager:local', { repository: 'localhost/cloneset-suite/controller-manager', tag: 'local' }],
    ['registry:5000/a/b:1.2', { repository: 'registry:5000/a/b', tag: '1.2' }],
  ])('splits %s into repository and tag', (ref, expected) => {
    expect(splitImageRef(ref)).toEqual(expected);
  });

  it.each(['registry:5000/a/b', 'a/b:', 'plain'])('refuses %s, which has no tag', (ref) => {
    expect(() => splitImageRef(ref)).toThrow(/has no tag/);
  });

  it('tags an image by its manifest digest, so a rebuilt image rolls the Deployment', () => {
    expect(contentTag(`sha256:${'0123456789ab'.repeat(5)}abcd`)).toBe('local-0123456789ab');
    expect(() => contentTag('sha256:xyz')).toThrow(/"sha256:xyz" is not a sha256 digest/);
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), fc.stringMatching(/^[0-9a-f]{64}$/), (a, b) => {
        expect(contentTag(`sha256:${a}`) === contentTag(`sha256:${b}`)).toBe(a.slice(0, 12) === b.slice(0, 12));
        expect(contentTag(`sha256:${a}`)).toMatch(/^[\w][\w.-]{0,127}$/);
      }),
    );
  });
});

describe("the manager's way to the apiserver", () => {
  it("dials the host at its pod bridge's gateway, by a name the apiserver's certificate covers", () => {
    const docs = parseAllDocuments(pointDeploymentsAtApiserver(rendered, { ip: '10.244.72.1', port: 32758 })).map((d) => d.toJS() as unknown);
    expect(docs).toHaveLength(2);
    expect(docs[0]).toEqual({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'cloneset-suite-webhook' }, spec: { ports: [{ port: 443 }] } });
    const pod = (docs[1] as { spec: { template: { spec: { hostAliases: unknown; containers: { env: unknown }[] } } } }).spec.template.spec;
    expect(pod.hostAliases).toEqual([{ ip: '10.244.72.1', hostnames: [APISERVER_HOSTNAME] }]);
    expect(pod.containers[0]?.env).toEqual([
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'KUBERNETES_SERVICE_HOST', value: 'kubernetes.default.svc' },
      { name: 'KUBERNETES_SERVICE_PORT', value: '32758' },
    ]);
  });

  it('is idempotent: rewriting twice is rewriting once', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 1, max: 65_535 }), (ip, port) => {
        const once = pointDeploymentsAtApiserver(rendered, { ip, port });
        expect(pointDeploymentsAtApiserver(once, { ip, port })).toBe(once);
      }),
      { numRuns: 25 },
    );
  });

  it('refuses manifests that are not YAML, and addresses it cannot use, naming them', () => {
    expect(() => pointDeploymentsAtApiserver('a: [', { ip: '10.0.0.1', port: 1 })).toThrow(/not YAML/);
    expect(gatewayOf('10.244.72.0/24')).toBe('10.244.72.1');
    expect(() => gatewayOf('10.244.0.0/16')).toThrow(/"10.244.0.0\/16" is not an IPv4 \/24/);
    expect(apiserverPort('https://127.0.0.1:32758')).toBe(32758);
    expect(apiserverPort('https://example.test')).toBe(443);
  });
});
