import { describe, expect, it } from 'vitest';
import { estimateSeconds } from '../../src/estimate.ts';
import { USAGE, parseBenchArgs } from '../../src/options.ts';
import { FULL } from '../../src/result.ts';
import { OPT_IN, SCENARIOS, clusterNodes } from '../../src/scenario-table.ts';

const names = Object.keys(SCENARIOS);

describe('the scenario table', () => {
  it('runs the six default scenarios without --only, an opt-in one when --only names it', () => {
    expect(parseBenchArgs([], names, OPT_IN).scenarios).toEqual(['scale-out', 'rollout', 'settled', 'webhook', 'memory', 'lease']);
    expect(OPT_IN).toEqual(['scale-large', 'scale-large-shipped', 'manager-large', 'sharding']);
    for (const name of OPT_IN) expect(parseBenchArgs([`--only=${name}`], names, OPT_IN).scenarios).toEqual([name]);
  });

  it('has an estimate for every scenario, and names every opt-in one in the help', () => {
    for (const name of names) expect(estimateSeconds(FULL, [name]), name).toBeGreaterThan(0);
    for (const name of OPT_IN) expect(USAGE).toContain(name);
  });

  it.each([
    [['scale-large'], 12],
    [['lease', 'scale-large-shipped'], 12],
    [['manager-large', 'rollout'], undefined],
  ])('starts the cluster for %j with %s simulated nodes at 10,000 replicas (undefined: its own 6)', (selected, nodes) => {
    expect(clusterNodes(selected, 10_000)).toBe(nodes);
  });
});
