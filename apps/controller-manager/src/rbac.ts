// The API calls the controller-manager makes, as RBAC rules. deploy/ grants exactly these (a
// test compares them): a rule is added here next to the code that starts making the call.
import { conversionWebhooks } from './webhooks/index.ts';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export interface Permissions {
  /** Objects in any namespace, or cluster-scoped. */
  cluster: PolicyRule[];
  /** Objects in the manager's own namespace. */
  namespaced: PolicyRule[];
}

export interface PermissionNames {
  leaseName: string;
  secretName: string;
  webhookConfigurationName: string;
  /** CRDs whose conversion webhook the manager serves (default: every registered conversion webhook's). */
  conversionCrdNames?: readonly string[];
}

/**
 * What the manager itself calls, apart from its controllers: always (`manager`), and only with
 * self-managed certificates (`certificates`; with --webhook-cert-dir the caBundle is left to
 * whoever issues the certificate, server/webhook-runnables.ts).
 */
export function managerPermissions(n: PermissionNames): { manager: Permissions; certificates: Permissions } {
  return {
    manager: {
      cluster: [
        // webhooks/pod-cache.ts: the pod cache podsToDelete entries are looked up in.
        { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
      ],
      namespaced: [
        // kube-runtime LeaderElector: create the Lease once, then read and replace it.
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'], resourceNames: [n.leaseName] },
      ],
    },
    certificates: {
      cluster: [
        // certs/ca-injector.ts: read the configurations, JSON-patch their caBundle.
        {
          apiGroups: ['admissionregistration.k8s.io'],
          resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
          verbs: ['get', 'patch'],
          resourceNames: [n.webhookConfigurationName],
        },
        // certs/crd-conversion.ts: read the CRDs whose conversion webhook we serve, JSON-patch their conversion stanza.
        {
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions'],
          verbs: ['get', 'patch'],
          resourceNames: [...(n.conversionCrdNames ?? conversionWebhooks().map((w) => w.name))],
        },
      ],
      namespaced: [
        // certs/secret-store.ts: the self-managed certificate Secret.
        { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
        { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'update'], resourceNames: [n.secretName] },
      ],
    },
  };
}

/** One line per (group, resource, verb, name) so rule sets compare regardless of grouping. */
export function flattenRules(rules: readonly PolicyRule[]): string[] {
  const out = new Set<string>();
  for (const r of rules) {
    for (const g of r.apiGroups) {
      for (const res of r.resources) {
        for (const v of r.verbs) {
          for (const name of r.resourceNames && r.resourceNames.length > 0 ? r.resourceNames : ['*']) out.add(`${g}|${res}|${v}|${name}`);
        }
      }
    }
  }
  return [...out].sort();
}
