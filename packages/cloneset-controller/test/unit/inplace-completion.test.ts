// In-place completion on a real node: a new tag of the same image keeps the imageID and the
// runtime may report the image by another of its tags, so the re-created container (a new
// containerID) is what shows the update landed.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { V1Pod } from '@kubernetes/client-node';
import { isInPlaceUpdateComplete, lastContainerStatuses } from '../../src/core/update/inplace-state.ts';
import { pod } from './fixtures.ts';

const STATE = 'apps.kruise.io/inplace-update-state';

interface Case {
  recorded: { imageID?: string; containerID?: string };
  status: { image: string; imageID: string; containerID?: string };
}

/** A pod at the new revision whose spec names nginx:mainline-alpine, with `recorded` as its state. */
function updated({ recorded, status }: Case): V1Pod {
  const p = pod({ rev: 'cs-new', state: 'Updating', labels: { 'pod-template-hash': 'new' } });
  p.metadata!.annotations![STATE] = JSON.stringify({ revision: 'cs-new', updateTimestamp: '2026-12-02T04:57:06Z', lastContainerStatuses: { main: recorded } });
  p.spec!.containers[0]!.image = 'nginx:mainline-alpine';
  p.status!.containerStatuses = [{ name: 'main', ready: true, restartCount: 1, ...status }];
  return p;
}

describe('in-place completion', () => {
  it.each<[string, Case, boolean]>([
    ['same imageID, the status names another tag, the container re-created: complete', { recorded: { imageID: 'sha-a', containerID: 'containerd://1' }, status: { image: 'nginx:alpine', imageID: 'sha-a', containerID: 'containerd://2' } }, true],
    ['same imageID, another tag, the same container (not restarted yet): waits', { recorded: { imageID: 'sha-a', containerID: 'containerd://1' }, status: { image: 'nginx:alpine', imageID: 'sha-a', containerID: 'containerd://1' } }, false],
    ['no containerID recorded (a state OpenKruise wrote): its rule alone, waits', { recorded: { imageID: 'sha-a' }, status: { image: 'nginx:alpine', imageID: 'sha-a', containerID: 'containerd://2' } }, false],
    ['no containerID in the status yet: waits', { recorded: { imageID: 'sha-a', containerID: 'containerd://1' }, status: { image: 'nginx:alpine', imageID: 'sha-a' } }, false],
    ['the imageID changed: complete', { recorded: { imageID: 'sha-a', containerID: 'containerd://1' }, status: { image: 'nginx:alpine', imageID: 'sha-b', containerID: 'containerd://1' } }, true],
    ['the status names the spec image: complete', { recorded: { imageID: 'sha-a', containerID: 'containerd://1' }, status: { image: 'nginx:mainline-alpine', imageID: 'sha-a', containerID: 'containerd://1' } }, true],
  ])('%s', (_name, c, complete) => {
    expect(isInPlaceUpdateComplete(updated(c))).toBe(complete);
  });

  it('records the containerID beside the imageID when the new image is written', () => {
    const p = updated({ recorded: {}, status: { image: 'nginx:alpine', imageID: 'sha-a', containerID: 'containerd://1' } });
    expect(lastContainerStatuses(p, ['main'])).toEqual({ main: { imageID: 'sha-a', containerID: 'containerd://1' } });
  });

  it('property: with imageID and image unchanged, complete exactly when the containerID differs from a recorded one', () => {
    const id = fc.constantFrom('containerd://1', 'containerd://2', 'containerd://3');
    fc.assert(
      fc.property(fc.option(id, { nil: undefined }), fc.option(id, { nil: undefined }), (recordedId, statusId) => {
        const p = updated({
          recorded: { imageID: 'sha-a', containerID: recordedId },
          status: { image: 'nginx:alpine', imageID: 'sha-a', containerID: statusId },
        });
        expect(isInPlaceUpdateComplete(p)).toBe(recordedId !== undefined && statusId !== undefined && recordedId !== statusId);
      }),
    );
  });
});
