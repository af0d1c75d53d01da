import { describe, expect, it } from 'vitest';
import { floorNotes, writeFloors } from '../../src/floors.ts';

describe('writeFloors', () => {
  it.each([
    { pods: 300, scaleOut: 3 + 12 / 300, inPlace: 4 + 12 / 300 },
    { pods: 100, scaleOut: 3 + 12 / 100, inPlace: 4 + 12 / 100 },
    { pods: 5, scaleOut: 3 + 7 / 5, inPlace: 4 + 7 / 5 },
  ])('$pods pods', ({ pods, scaleOut, inPlace }) => {
    const [s, i] = writeFloors(pods, pods);
    expect(s!.floor).toBeCloseTo(scaleOut, 10);
    expect(i!.floor).toBeCloseTo(inPlace, 10);
  });

  it('says both write targets are out of reach by specification, with the floor', () => {
    const notes = floorNotes(writeFloors(300, 100));
    expect(notes[0]).toMatch(/^Scale-out of 300 pods cannot meet the issue's target of ≤ 2.5 writes per pod by specification: .* 3 writes per pod .* floor is 3.04/);
    expect(notes[1]).toMatch(/^In-place update of 100 pods cannot meet the issue's target of ≤ 3 writes per pod by specification: .* 4 writes per pod .* floor is 4.12/);
  });
});
