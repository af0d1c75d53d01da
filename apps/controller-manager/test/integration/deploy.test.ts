// Every manifest of deploy/ is accepted by the apiserver (server-side dry run): the kustomize
// base, and the Helm chart rendered with `helm template` (helm from PATH, or built once from its
// Go module by apps/controller-manager/scripts/helm.sh --build).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { kubectl, repoRoot } from '@cloneset-suite/local-cluster';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEPLOY_NAME, deployRbacPlan } from '../../src/deploy/render.ts';
import { ALERT_RULES } from '../../src/observability/alerts.ts';
import { grafanaDashboard } from '../../src/observability/dashboard.ts';
import { flattenRules, type PolicyRule } from '../../src/rbac.ts';

const NAMESPACE = 'cloneset-suite-system';
const helmScript = fileURLToPath(new URL('../../scripts/helm.sh', import.meta.url));

/** helm from PATH or $HELM, else built once from its Go module into the cache (minutes, first time). */
function helmBinary(): string {
  return execFileSync('bash', [helmScript, '--build'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 }).trim();
}

/**
 * One line of kubectl output per object. CRDs are dry-run replaced (or created) whole: applied,
 * they would merge with the live CRD, whose conversion webhook another installer may have
 * pointed at a URL (the cluster suites' shared one), and url plus service is refused.
 */
async function serverDryRun(manifests: string): Promise<string> {
  const docs = parseAllDocuments(manifests).map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null).filter((o) => o !== null);
  const crds = docs.filter((o) => o.kind === 'CustomResourceDefinition');
  const rest = docs.filter((o) => o.kind !== 'CustomResourceDefinition');
  let out = '';
  for (const crd of crds) {
    const exists = (await kubectl(['get', 'crd', crd.metadata?.name ?? '', '--ignore-not-found', '-o', 'name'])).trim() !== '';
    out += await kubectl([exists ? 'replace' : 'create', '--dry-run=server', '-f', '-'], JSON.stringify(crd));
  }
  const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rest });
  return out + (await kubectl(['apply', '--dry-run=server', '--server-side', '--force-conflicts', '--field-manager=cloneset-suite-deploy-test', '-f', '-'], list));
}

describe('deploy/ manifests', () => {
  beforeAll(async () => {
    // Namespaced objects are checked inside their namespace, which must exist for a dry run.
    await kubectl(['create', 'namespace', NAMESPACE]).catch((err: Error) => {
      if (!err.message.includes('AlreadyExists')) throw err;
    });
  });

  it('kustomize base: every object passes server-side validation', async () => {
    const rendered = await kubectl(['kustomize', path.join(repoRoot, 'deploy/kustomize/base')]);
    const kinds = parseAllDocuments(rendered).map((d) => (d.toJS() as { kind: string }).kind);
    expect(kinds).toEqual(
      expect.arrayContaining(['Namespace', 'CustomResourceDefinition', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Service', 'Deployment', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']),
    );
    const out = await serverDryRun(rendered);
    expect(out.trim().split('\n')).toHaveLength(kinds.length);
    expect(out).not.toMatch(/error/i);
  });

  it('Helm chart: helm template passes server-side validation and grants the declared RBAC', async () => {
    const rendered = execFileSync(helmBinary(), ['template', 'cloneset-suite', path.join(repoRoot, 'deploy/helm/cloneset-suite'), '--namespace', NAMESPACE, '--include-crds'], { encoding: 'utf8' });
    const objects = parseAllDocuments(rendered).map((d) => d.toJS() as { kind: string; metadata: { name: string }; rules?: PolicyRule[] }).filter((o) => o);
    const plan = deployRbacPlan();
    const rules = (kind: string, name: string): string[] => flattenRules(objects.find((o) => o.kind === kind && o.metadata.name === name)!.rules!);
    expect(rules('ClusterRole', DEPLOY_NAME)).toEqual(flattenRules(plan.clusterRole));
    expect(rules('Role', DEPLOY_NAME)).toEqual(flattenRules(plan.ownNamespaceRole));
    expect(rules('ClusterRole', `${DEPLOY_NAME}-certificates`)).toEqual(flattenRules(plan.certificatesClusterRole));
    expect(rules('Role', `${DEPLOY_NAME}-certificates`)).toEqual(flattenRules(plan.certificatesRole));
    const out = await serverDryRun(rendered);
    expect(out.trim().split('\n')).toHaveLength(objects.length);
  }, 600_000);

  it('Helm chart: the dashboard ConfigMap carries the Grafana sidecar label; the PrometheusRule renders where its kind is served', () => {
    const render = (...extra: string[]) =>
      parseAllDocuments(execFileSync(helmBinary(), ['template', 'cloneset-suite', path.join(repoRoot, 'deploy/helm/cloneset-suite'), '--namespace', NAMESPACE, ...extra], { encoding: 'utf8' }))
        .map((d) => d.toJS() as { kind: string; metadata: { name: string; labels?: Record<string, string> }; data?: Record<string, string>; spec?: { groups: { rules: unknown[] }[] } })
        .filter((o) => o);
    const plain = render();
    const dashboard = plain.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'cloneset-suite-grafana-dashboard')!;
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe('1');
    expect(JSON.parse(dashboard.data!['cloneset-suite.json']!)).toEqual(grafanaDashboard());
    expect(plain.some((o) => o.kind === 'PrometheusRule')).toBe(false);
    const withOperator = render('--api-versions', 'monitoring.coreos.com/v1/PrometheusRule');
    expect(withOperator.find((o) => o.kind === 'PrometheusRule')!.spec!.groups[0]!.rules).toEqual(ALERT_RULES);
    expect(render('--set', 'grafanaDashboard.enabled=false').some((o) => o.kind === 'ConfigMap' && o.metadata.name === 'cloneset-suite-grafana-dashboard')).toBe(false);
  }, 600_000);
});
