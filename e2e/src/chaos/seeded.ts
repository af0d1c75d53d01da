// Seeded randomness for chaos runs: the same seed replays the same kill points and edits, so a
// failing run printed with its seed can be run again (CHAOS_SEED=<n>). The generator is the suite's
// one seeded source (local-cluster's seededRandom).
import { seededRandom } from '@cloneset-suite/local-cluster';

export { seededRandom };

/** The seed from CHAOS_SEED, or a fresh one; callers print it. */
export function chaosSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.CHAOS_SEED;
  if (given !== undefined && given !== '') {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`CHAOS_SEED must be an integer in [0, 2^32): ${given}`);
    return n;
  }
  return Math.floor(Math.random() * 0xffffffff);
}

/** How long after each (re)start of the manager the next SIGKILL lands, in ms, within [minMs, maxMs]. */
export function killSchedule(seed: number, kills: number, minMs: number, maxMs: number): number[] {
  if (kills < 0 || minMs < 0 || maxMs < minMs) throw new Error(`bad kill schedule: ${kills} kills in [${minMs}, ${maxMs}] ms`);
  const next = seededRandom(seed);
  return Array.from({ length: kills }, () => Math.round(minMs + next() * (maxMs - minMs)));
}

/** `npm run test:chaos` sets CHAOS_LONG=1: the long versions of the scenarios. */
export const chaosLong = (env: NodeJS.ProcessEnv = process.env): boolean => env.CHAOS_LONG === '1';
