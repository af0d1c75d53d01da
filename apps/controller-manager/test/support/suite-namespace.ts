// What the manager suites with controlled pods share around their namespace: waiting until the
// pod webhooks of a URL-mode manager answer, and a teardown that lets the namespace go although
// protection and traffic finalizers stay on pods once the manager is stopped.
import { eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';

const CONTROL_LABEL = 'kusionstack.io/control';

/** Resolves once a controlled pod is admitted (server-side dry run) through the manager's webhooks. */
export function podWebhooksAnswer(namespace: string): Promise<boolean> {
  const probe = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probe', labels: { [CONTROL_LABEL]: 'true' } }, spec: { containers: [{ name: 'c', image: 'x' }] } };
  return eventually('the pod webhooks answer', async () => {
    await kubectl(['apply', '--dry-run=server', '-n', namespace, '-f', '-'], JSON.stringify(probe));
    return true;
  }, { timeoutMs: 60_000 });
}

/** Deletes `kinds` (if any) without waiting, strips every pod's finalizers, then removes the namespace. */
export async function releaseNamespace(ns: { name: string; remove: () => Promise<void> }, kinds?: string): Promise<void> {
  if (kinds) await kubectl(['delete', kinds, '--all', '-n', ns.name, '--wait=false']).catch(() => undefined);
  const left = await getJson<{ items: { metadata?: { name?: string; finalizers?: string[] } }[] }>(['pods', '-n', ns.name]).catch(() => undefined);
  for (const p of left?.items ?? []) {
    if ((p.metadata?.finalizers ?? []).length > 0) await kubectl(['patch', 'pod', p.metadata!.name!, '-n', ns.name, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']).catch(() => undefined);
  }
  await ns.remove();
}
