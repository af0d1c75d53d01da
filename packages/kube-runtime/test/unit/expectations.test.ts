import { describe, expect, it } from 'vitest';
import { ResourceVersionExpectations, ScaleExpectations, compareResourceVersions } from '../../src/expectations.ts';
import { createMetrics } from '../../src/metrics.ts';
import { FakeClock } from '../../src/util/clock.ts';

function setup(timeoutMs?: number) {
  const clock = new FakeClock(1_000_000);
  const metrics = createMetrics();
  const expired: string[] = [];
  const exp = new ScaleExpectations({
    controller: 'cloneset',
    clock,
    metrics,
    onExpired: (k) => expired.push(k),
    timeoutMs,
  });
  return { clock, metrics, expired, exp };
}

describe('ScaleExpectations', () => {
  it('is satisfied only when every expected create and delete was observed', () => {
    const { exp } = setup();
    expect(exp.satisfied('ns/cs')).toBe(true);
    exp.expect('ns/cs', 'create', 'cs-a');
    exp.expect('ns/cs', 'create', 'cs-b');
    exp.expect('ns/cs', 'delete', 'cs-old');
    expect(exp.satisfied('ns/cs')).toBe(false);
    exp.observe('ns/cs', 'create', 'cs-a');
    exp.observe('ns/cs', 'create', 'cs-b');
    expect(exp.satisfied('ns/cs')).toBe(false);
    expect(exp.pending('ns/cs')).toEqual({ create: [], delete: ['cs-old'] });
    exp.observe('ns/cs', 'create', 'cs-old'); // wrong action: no effect
    expect(exp.satisfied('ns/cs')).toBe(false);
    exp.observe('ns/cs', 'delete', 'cs-old');
    expect(exp.satisfied('ns/cs')).toBe(true);
    expect(exp.satisfied('ns/other')).toBe(true);
  });

  it('owners are independent, and observing an unknown owner or name is harmless', () => {
    const { exp } = setup();
    exp.expect('ns/a', 'create', 'x');
    exp.observe('ns/b', 'create', 'x');
    exp.observe('ns/a', 'create', 'unknown');
    expect(exp.satisfied('ns/a')).toBe(false);
    expect(exp.satisfied('ns/b')).toBe(true);
  });

  it('expires after 5 minutes by default: drops, counts and requeues the owner', async () => {
    const { exp, clock, metrics, expired } = setup();
    exp.expect('ns/cs', 'create', 'cs-a');
    await clock.advance(5 * 60_000 - 1);
    expect(exp.satisfied('ns/cs')).toBe(false);
    expect(expired).toEqual([]);
    await clock.advance(1);
    expect(expired).toEqual(['ns/cs']);
    expect(exp.satisfied('ns/cs')).toBe(true);
    expect(await metrics.registry.getSingleMetricAsString('controller_expectations_expired_total')).toContain(
      'controller_expectations_expired_total{controller="cloneset"} 1',
    );
    expect(clock.pendingTimers()).toBe(0);
  });

  it('satisfied() itself expires a stale entry even before the timer fires', async () => {
    const clock = new FakeClock();
    const expired: string[] = [];
    // A clock whose timers never fire, as when the event loop is starved.
    const stuck = { now: () => clock.now(), setTimer: () => ({ cancel: () => undefined }) };
    const exp = new ScaleExpectations({ controller: 'c', clock: stuck, timeoutMs: 1000, onExpired: (k) => expired.push(k) });
    exp.expect('k', 'delete', 'p');
    await clock.advance(1000);
    expect(exp.satisfied('k')).toBe(true);
    expect(expired).toEqual(['k']);
  });

  it('the timeout counts from when the owner last became pending, not from the first ever expectation', async () => {
    const { exp, clock, expired } = setup(1000);
    exp.expect('k', 'create', 'a');
    await clock.advance(900);
    exp.observe('k', 'create', 'a');
    exp.expect('k', 'create', 'b');
    await clock.advance(900);
    expect(exp.satisfied('k')).toBe(false);
    await clock.advance(100);
    expect(expired).toEqual(['k']);
  });

  it('observed expectations cancel their timer', async () => {
    const { exp, clock, expired } = setup(1000);
    exp.expect('k', 'create', 'a');
    exp.observe('k', 'create', 'a');
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(5000);
    expect(expired).toEqual([]);
  });
});

describe('ResourceVersionExpectations', () => {
  it('waits until the cache holds the written version or newer', async () => {
    const clock = new FakeClock();
    const rv = new ResourceVersionExpectations({ clock, timeoutMs: 60_000 });
    rv.expect('ns/p', '105');
    expect(rv.satisfied('ns/p', '104')).toBe(false);
    expect(rv.satisfied('ns/p', '99')).toBe(false);
    rv.observe('ns/p', '100');
    expect(rv.satisfied('ns/p')).toBe(false);
    rv.observe('ns/p', '1000'); // numeric, not lexical, order
    expect(rv.satisfied('ns/p')).toBe(true);
    rv.expect('ns/q', '7');
    await clock.advance(60_000);
    expect(rv.satisfied('ns/q', '1')).toBe(true);
  });

  it('keeps the newest expected version', () => {
    const rv = new ResourceVersionExpectations();
    rv.expect('k', '20');
    rv.expect('k', '10');
    expect(rv.satisfied('k', '15')).toBe(false);
    expect(rv.satisfied('k', '20')).toBe(true);
  });

  it('compares versions numerically, treating non-numeric ones as unknown', () => {
    expect(compareResourceVersions('9', '10')).toBe(-1);
    expect(compareResourceVersions('10', '9')).toBe(1);
    expect(compareResourceVersions('12345678901234567890', '12345678901234567890')).toBe(0);
    expect(compareResourceVersions('abc', 'abd')).toBe(-1);
  });
});
