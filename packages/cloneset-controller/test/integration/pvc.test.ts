// PVC templates (OpenKruise's PVC handling): claims are created before their pod, kept and reused when a pod is
// deleted from outside, deleted with a pod the controller removes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, getJson, kubectl, repoRoot } from '@cloneset-suite/local-cluster';
import { controllerInNamespace } from './harness.ts';

interface Pod {
  metadata: { name: string; uid: string; labels: Record<string, string>; deletionTimestamp?: string };
  spec: { volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[] };
  status: { conditions?: { type: string; status: string }[] };
}
interface Pvc { metadata: { name: string; uid: string; labels: Record<string, string>; ownerReferences?: { kind: string; name: string }[] }; status: { phase?: string } }

const ready = (p: Pod): boolean => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

describe('CloneSet PVC templates', () => {
  let ns: string;
  const pods = async (): Promise<Pod[]> => ((await getJson<{ items: Pod[] }>(['pods', '-n', ns]))?.items ?? []).filter((p) => !p.metadata.deletionTimestamp);
  const pvcs = async (): Promise<Pvc[]> => (await getJson<{ items: Pvc[] }>(['pvc', '-n', ns]))?.items ?? [];

  controllerInNamespace('cs-pvc', (s) => ({ ns } = s));

  it('applies the seed PVC sample unchanged: one bound claim per pod, named <claim>-<cs>-<id>', async () => {
    const sample = readFileSync(path.join(repoRoot, 'packages/api-types/test/fixtures/seed-002-cloneset-sample-data.yaml'), 'utf8');
    await kubectl(['apply', '-n', ns, '-f', '-'], sample);
    const list = await eventually('2 ready pods', async () => {
      const l = await pods();
      return l.length === 2 && l.every(ready) ? l : undefined;
    }, { timeoutMs: 60_000 });
    const claims = await pvcs();
    expect(claims).toHaveLength(2);
    for (const pod of list) {
      const id = pod.metadata.labels['apps.kruise.io/cloneset-instance-id'];
      const claim = pod.spec.volumes?.find((v) => v.name === 'data-vol')?.persistentVolumeClaim?.claimName;
      expect(claim).toBe(`data-vol-sample-data-${id}`);
      const pvc = claims.find((c) => c.metadata.name === claim)!;
      expect(pvc.status.phase).toBe('Bound');
      expect(pvc.metadata.labels['apps.kruise.io/cloneset-instance-id']).toBe(id);
      expect(pvc.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'CloneSet', name: 'sample-data' })]);
    }
  });

  it('reuses the id, name and claim when a pod is deleted from outside', async () => {
    const [victim] = await pods();
    const claimsBefore = await pvcs();
    await kubectl(['delete', 'pod', victim!.metadata.name, '-n', ns, '--wait=false']);
    const replacement = await eventually('replacement with the same name', async () => {
      const p = (await pods()).find((x) => x.metadata.name === victim!.metadata.name && x.metadata.uid !== victim!.metadata.uid);
      return p && ready(p) ? p : undefined;
    }, { timeoutMs: 60_000 });
    expect(replacement.metadata.labels['apps.kruise.io/cloneset-instance-id']).toBe(victim!.metadata.labels['apps.kruise.io/cloneset-instance-id']);
    const claimsAfter = await pvcs();
    expect(claimsAfter.map((c) => c.metadata.uid).sort()).toEqual(claimsBefore.map((c) => c.metadata.uid).sort());
  });

  it('deletes the claim with a pod removed by scale-in', async () => {
    await kubectl(['scale', 'clone', 'sample-data', '-n', ns, '--replicas=1']);
    const [remaining] = await eventually('1 pod left', async () => {
      const l = await pods();
      return l.length === 1 ? l : undefined;
    }, { timeoutMs: 60_000 });
    const id = remaining!.metadata.labels['apps.kruise.io/cloneset-instance-id'];
    await eventually('only the remaining pod\'s claim is left', async () => {
      const c = await pvcs();
      return c.length === 1 && c[0]!.metadata.name === `data-vol-sample-data-${id}`;
    }, { timeoutMs: 60_000 });
  });
});
