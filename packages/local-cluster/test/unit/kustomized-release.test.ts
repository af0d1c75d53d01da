import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { pointDeploymentsAtApiserver } from '../../src/deploy/apiserver-access.ts';
import { BASE_IMAGE, kustomizedRelease } from '../../src/deploy/kustomized-release.ts';
import { releaseValues } from '../../src/deploy/release-values.ts';
import type { Deployment, PodSpec } from '../../src/deploy/rewrite-deployments.ts';
import { repoRoot } from '../../src/paths.ts';
import { REAL_NODE_LABEL, REAL_NODE_TAINT } from '../../src/real-node/config.ts';

const baseDir = path.join(repoRoot, 'deploy', 'kustomize', 'base');
const baseDeployment = readFileSync(path.join(baseDir, 'deployment.yaml'), 'utf8');
const service = 'apiVersion: v1\nkind: Service\nmetadata: {name: cloneset-suite-webhook}\nspec: {ports: [{port: 443}]}\n';
const values = releaseValues({ repository: 'localhost/cloneset-suite/controller-manager', tag: 'local-0123456789ab' });
const address = { ip: '10.244.72.1', port: 32758 };
const realNodeToleration = { key: REAL_NODE_TAINT.key, operator: 'Equal', value: 'true', effect: 'NoSchedule' };

const docsOf = (manifests: string): unknown[] => parseAllDocuments(manifests).map((d) => d.toJS() as unknown);
const deploymentsOf = (manifests: string): Deployment[] => docsOf(manifests).filter((o): o is Deployment => (o as { kind?: string }).kind === 'Deployment');
const podOf = (manifests: string): PodSpec => deploymentsOf(manifests)[0]?.spec?.template?.spec ?? {};

/** A Deployment whose pod template is `pod`, as YAML. */
const deployment = (pod: PodSpec, name = 'cloneset-suite-controller-manager'): string =>
  `---\n${JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas: 1, template: { spec: pod } } })}\n`;

describe('the kustomize base as the local release', () => {
  it("names the image the base's kustomization and Deployment run", () => {
    const kustomization = parse(readFileSync(path.join(baseDir, 'kustomization.yaml'), 'utf8')) as { images: { name: string }[] };
    expect(kustomization.images.map((i) => i.name)).toEqual([BASE_IMAGE]);
    expect(podOf(baseDeployment).containers?.map((c) => c.image)).toEqual([`${BASE_IMAGE}:dev`]);
  });

  it("runs the base's Deployment as the Helm release runs: two replicas on the real node from the imported image, dialling the apiserver at the gateway", () => {
    const out = kustomizedRelease(`---\n${service}---\n${baseDeployment}`, values, address);
    expect(docsOf(out)[0]).toEqual(parse(service));
    const [manager] = deploymentsOf(out);
    expect(manager?.spec?.replicas).toBe(2);
    const pod = manager?.spec?.template?.spec ?? {};
    expect(pod.nodeSelector).toEqual({ [REAL_NODE_LABEL]: 'true' });
    expect(pod.tolerations).toEqual([realNodeToleration]);
    expect(pod.hostAliases).toEqual([{ ip: '10.244.72.1', hostnames: ['kubernetes.default.svc'] }]);
    const [container] = pod.containers ?? [];
    expect(container?.image).toBe('localhost/cloneset-suite/controller-manager:local-0123456789ab');
    expect(container?.imagePullPolicy).toBe('Never');
    expect(container?.env?.slice(-2)).toEqual([
      { name: 'KUBERNETES_SERVICE_HOST', value: 'kubernetes.default.svc' },
      { name: 'KUBERNETES_SERVICE_PORT', value: '32758' },
    ]);
    // The base's own settings stay.
    expect(container?.env?.map((e) => e.name)).toEqual(['POD_NAMESPACE', 'POD_IP', 'KUBERNETES_SERVICE_HOST', 'KUBERNETES_SERVICE_PORT']);
    const basePod = (parse(baseDeployment) as { spec: { template: { spec: Record<string, unknown> } } }).spec.template.spec;
    expect(pod).toMatchObject({ serviceAccountName: basePod.serviceAccountName, securityContext: basePod.securityContext, topologySpreadConstraints: basePod.topologySpreadConstraints });
    expect(container).toMatchObject({ args: (basePod.containers as { args: string[] }[])[0]?.args });
  });

  it.each<[string, PodSpec, Partial<PodSpec>]>([
    ['keeps a node selector it does not set', { nodeSelector: { zone: 'a' }, containers: [{ name: 'manager', image: `${BASE_IMAGE}:v1` }] }, { nodeSelector: { zone: 'a', [REAL_NODE_LABEL]: 'true' } }],
    ['replaces the real node label a selector already has', { nodeSelector: { [REAL_NODE_LABEL]: 'no' }, containers: [{ name: 'manager', image: BASE_IMAGE }] }, { nodeSelector: { [REAL_NODE_LABEL]: 'true' } }],
    [
      'keeps other tolerations, and replaces one of the real node taint',
      {
        tolerations: [{ key: 'other', operator: 'Exists' }, { key: REAL_NODE_TAINT.key, operator: 'Exists', effect: 'NoSchedule' }],
        containers: [{ name: 'manager', image: `${BASE_IMAGE}@sha256:${'0'.repeat(64)}` }],
      },
      { tolerations: [{ key: 'other', operator: 'Exists' }, realNodeToleration] },
    ],
    [
      'rewrites only the containers that run the base image',
      { containers: [{ name: 'sidecar', image: 'busybox:1', imagePullPolicy: 'Always' }, { name: 'manager', image: `${BASE_IMAGE}:dev` }] },
      {
        containers: [
          { name: 'sidecar', image: 'busybox:1', imagePullPolicy: 'Always', env: [{ name: 'KUBERNETES_SERVICE_HOST', value: 'kubernetes.default.svc' }, { name: 'KUBERNETES_SERVICE_PORT', value: '32758' }] },
          { name: 'manager', image: 'localhost/cloneset-suite/controller-manager:local-0123456789ab', imagePullPolicy: 'Never', env: [{ name: 'KUBERNETES_SERVICE_HOST', value: 'kubernetes.default.svc' }, { name: 'KUBERNETES_SERVICE_PORT', value: '32758' }] },
        ],
      },
    ],
  ])('%s', (_, pod, expected) => {
    expect(podOf(kustomizedRelease(deployment(pod), values, address))).toMatchObject(expected);
  });

  it('leaves a Deployment that does not run the base image as it is', () => {
    const other = deployment({ containers: [{ name: 'app', image: 'registry:5000/cloneset-suite/controller-manager:v1' }] }, 'other');
    const out = deploymentsOf(kustomizedRelease(`${other}${deployment({ containers: [{ name: 'manager', image: BASE_IMAGE }] })}`, values, address));
    expect(out[0]).toEqual(deploymentsOf(other)[0]);
    expect(out[1]?.spec?.replicas).toBe(2);
  });

  it('refuses manifests without the manager, and manifests that are not YAML, saying so', () => {
    expect(() => kustomizedRelease(service, values, address)).toThrow(/the kustomize base renders no Deployment running the image cloneset-suite\/controller-manager/);
    expect(() => kustomizedRelease(deployment({ containers: [{ name: 'app', image: 'busybox:1' }] }), values, address)).toThrow(/no Deployment running the image/);
    expect(() => kustomizedRelease('a: [', values, address)).toThrow(/not YAML/);
  });

  it("reaches the apiserver exactly as the Helm release's post-renderer makes it, for any image and address", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[\w][\w.-]{0,20}$/), fc.ipV4(), fc.integer({ min: 1, max: 65_535 }), (tag, ip, port) => {
        const release = releaseValues({ repository: 'localhost/cloneset-suite/controller-manager', tag });
        const pod = podOf(kustomizedRelease(baseDeployment, release, { ip, port }));
        const postRendered = podOf(pointDeploymentsAtApiserver(baseDeployment, { ip, port }));
        expect(pod.hostAliases).toEqual(postRendered.hostAliases);
        expect(pod.containers?.map((c) => c.env)).toEqual(postRendered.containers?.map((c) => c.env));
        expect(pod.containers?.[0]?.image).toBe(`localhost/cloneset-suite/controller-manager:${tag}`);
      }),
      { numRuns: 25 },
    );
  });
});
