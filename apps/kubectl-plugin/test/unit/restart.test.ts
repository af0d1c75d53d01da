import type { CloneSet } from '@cloneset-suite/api-types';
import { describe, expect, it } from 'vitest';
import type { CloneSetApi } from '../../src/cluster.ts';
import { rolloutRestart } from '../../src/commands/restart.ts';
import type { Io } from '../../src/commands/io.ts';

const NOW = new Date('2030-05-06T07:08:09Z');

function cloneSet(generation: number, status: Partial<NonNullable<CloneSet['status']>>): CloneSet {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'web', namespace: 'ns', generation },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'main', image: 'web:1' }] } } },
    status: { observedGeneration: generation, replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2, updatedReadyReplicas: 2, updatedAvailableReplicas: 2, expectedUpdatedReplicas: 2, ...status },
  };
}

/** A CloneSet API that records patches and plays `seen` to whoever follows the CloneSet. */
function fakeApi(seen: CloneSet[]): CloneSetApi & { patches: unknown[]; followed: boolean } {
  const api = {
    namespace: 'ns',
    patches: [] as unknown[],
    followed: false,
    get: () => Promise.resolve(cloneSet(1, {})),
    patch: (_name: string, patch: unknown) => {
      api.patches.push(patch);
      return Promise.resolve(cloneSet(2, { observedGeneration: 1 }));
    },
    follow: (): AsyncIterable<CloneSet> => {
      api.followed = true;
      return (async function* () {
        for (const cs of seen) yield await Promise.resolve(cs);
      })();
    },
    revisions: () => Promise.reject(new Error('not used')),
    pods: () => Promise.reject(new Error('not used')),
    planReads: () => Promise.reject(new Error('not used')),
  };
  return api;
}

function captureIo(): Io & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t), now: () => NOW };
  return io;
}

describe('rollout restart', () => {
  const rollout = [
    cloneSet(2, { observedGeneration: 1 }),
    cloneSet(2, { updatedReplicas: 0, updatedReadyReplicas: 0, updatedAvailableReplicas: 0 }),
    cloneSet(2, { updatedReplicas: 1, updatedReadyReplicas: 1, updatedAvailableReplicas: 1 }),
    cloneSet(2, {}),
  ];

  it('stamps the template, then follows the rollout as rollout status does and exits 0 once it is done', async () => {
    const api = fakeApi(rollout);
    const io = captureIo();
    expect(await rolloutRestart(api, io, { name: 'web', output: undefined, watch: true, timeoutMs: 0 })).toBe(0);
    expect(api.patches).toEqual([
      { type: 'merge', body: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2030-05-06T07:08:09Z' } } } } } },
    ]);
    expect(io.stdout).toBe(
      [
        'cloneset.apps.kruise.io/web restarted',
        'Waiting for clone spec update to be observed...',
        'Waiting for clone "web" rollout to finish: 0 out of 2 new replicas have been updated...',
        'Waiting for clone "web" rollout to finish: 1 out of 2 new replicas have been updated...',
        'clone "web" successfully rolled out',
        '',
      ].join('\n'),
    );
    expect(io.stderr).toBe('');
  });

  it('exits 1 as rollout status does when the rollout can no longer progress', async () => {
    const stuck = cloneSet(2, { updatedReplicas: 1, conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'CloneSet revision web-2 has timed out progressing' }] });
    const io = captureIo();
    expect(await rolloutRestart(fakeApi([stuck]), io, { name: 'web', output: undefined, watch: true, timeoutMs: 0 })).toBe(1);
    expect(io.stderr).toContain('exceeded its progress deadline');
  });

  it('--watch=false returns after the stamp without following', async () => {
    const api = fakeApi(rollout);
    const io = captureIo();
    expect(await rolloutRestart(api, io, { name: 'web', output: undefined, watch: false, timeoutMs: 0 })).toBe(0);
    expect(io.stdout).toBe('cloneset.apps.kruise.io/web restarted\n');
    expect(api.followed).toBe(false);
  });
});
