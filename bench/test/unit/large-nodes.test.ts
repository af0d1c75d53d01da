import { describe, expect, it } from 'vitest';
import { nodesForLarge } from '../../src/scenarios/scale-large.ts';

describe('nodesForLarge', () => {
  it.each([
    [300, 6],
    [5_000, 6],
    [5_001, 7],
    [10_000, 12],
    [50_000, 60],
  ])('%i replicas need %i simulated nodes of 1,000 pods (a fifth more room for pods still terminating, never fewer than the cluster has)', (replicas, nodes) => {
    expect(nodesForLarge(replicas)).toBe(nodes);
  });
});
