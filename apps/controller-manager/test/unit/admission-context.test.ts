import { silentLogger } from '@cloneset-suite/kube-runtime';
import { describe, expect, it, vi } from 'vitest';
import { RequestContext } from '../../src/server/admission-context.ts';
import { podRequest } from '../support/reviews.ts';

const request = podRequest('UPDATE', {}, undefined, { namespace: 'ns' });

function context(): { ctx: RequestContext; child: ReturnType<typeof vi.spyOn> } {
  const parent = silentLogger();
  const child = vi.spyOn(parent, 'child');
  return { ctx: new RequestContext(parent, 'mpod.test.io', request), child };
}

describe('RequestContext', () => {
  it('derives the request logger once, on first use, bound to the webhook and the request', () => {
    const { ctx, child } = context();
    expect(child).not.toHaveBeenCalled();
    const logger = ctx.logger;
    expect(ctx.logger).toBe(logger);
    expect(child).toHaveBeenCalledTimes(1);
    expect(child).toHaveBeenCalledWith({ webhook: 'mpod.test.io', uid: request.uid, operation: 'UPDATE', object: 'ns/p' });
  });

  it.each([
    ['a signal taken before the time limit is aborted when it is reached', true],
    ['a signal taken after the time limit is born aborted', false],
  ])('%s', (_what, takeFirst) => {
    const { ctx } = context();
    const early = takeFirst ? ctx.signal : undefined;
    if (early) expect(early.aborted).toBe(false);
    const reason = new Error('timed out');
    ctx.abort(reason);
    ctx.abort(new Error('later'));
    const signal = early ?? ctx.signal;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(ctx.signal).toBe(signal);
  });

  it('keeps a signal that was never aborted live', () => {
    const { ctx } = context();
    expect(ctx.signal.aborted).toBe(false);
  });
});
