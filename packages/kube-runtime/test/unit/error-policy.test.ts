// The one error policy every controller shares: what each kind of thrown error means for the key,
// the log and metrics, and the Events.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError, ConflictError, TooManyRequestsError } from '../../src/client/errors.ts';
import { errorPolicy, isLostRace, type ErrorDecision } from '../../src/controller/error-policy.ts';
import { LostRaceError, ReconcileError, TerminalError } from '../../src/controller/errors.ts';

const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' } };
const event = { regarding: pod, reason: 'LifecycleWriteFailed', action: 'Update' };
const conflict = (): ConflictError => new ConflictError(409, 'Conflict', 'the object has been modified', undefined, 'PATCH pods/p');
const throttled = (seconds: number): TooManyRequestsError => new TooManyRequestsError(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: seconds }, 'PATCH pods/p');

describe('errorPolicy', () => {
  it.each<[string, unknown, ErrorDecision]>([
    ['a TerminalError is dropped', new TerminalError('bad key'), { retry: 'drop', notBeforeMs: 0, lostRace: false, event: undefined }],
    ['a conflict is a lost race: backoff, no Event', conflict(), { retry: 'backoff', notBeforeMs: 0, lostRace: true, event: undefined }],
    ['a LostRaceError is a lost race', new LostRaceError('status: the CloneSet changed'), { retry: 'backoff', notBeforeMs: 0, lostRace: true, event: undefined }],
    ['a ReconcileError of conflicts only is a lost race: its Event is not recorded', new ReconcileError('write failed', { causes: [conflict()], event }), { retry: 'backoff', notBeforeMs: 0, lostRace: true, event: undefined }],
    ['a ReconcileError records its Event', new ReconcileError('write failed', { causes: [new Error('quota')], event }), { retry: 'backoff', notBeforeMs: 0, lostRace: false, event }],
    ['a ReconcileError with a conflict and a failure is a failure', new ReconcileError('two writes', { causes: [conflict(), new Error('quota')] }), { retry: 'backoff', notBeforeMs: 0, lostRace: false, event: undefined }],
    ['a ReconcileError with no cause is a failure', new ReconcileError('rule error'), { retry: 'backoff', notBeforeMs: 0, lostRace: false, event: undefined }],
    ['Retry-After of a 429 sets the earliest retry', throttled(3), { retry: 'backoff', notBeforeMs: 3_000, lostRace: false, event: undefined }],
    ['the longest Retry-After among a ReconcileError causes', new ReconcileError('pass failed', { causes: [throttled(2), new Error('x', { cause: throttled(5) })] }), { retry: 'backoff', notBeforeMs: 5_000, lostRace: false, event: undefined }],
    ['a plain Error is retried with backoff', new Error('boom'), { retry: 'backoff', notBeforeMs: 0, lostRace: false, event: undefined }],
    ['a non-Error throw is retried with backoff', 'a string', { retry: 'backoff', notBeforeMs: 0, lostRace: false, event: undefined }],
  ])('%s', (_name, err, decision) => {
    expect(errorPolicy(err)).toEqual(decision);
  });

  it('an apiserver 500 is a failure, not a lost race', () => {
    expect(isLostRace(new ApiError(500, 'InternalError', 'etcd', undefined, 'PATCH pods/p'))).toBe(false);
  });

  it('a ReconcileError is a lost race exactly when it has causes and every one is', () => {
    const cause = fc.oneof(
      fc.constant(conflict()),
      fc.constant(new LostRaceError('lost')),
      fc.constant(new Error('refused')),
      fc.constant(throttled(1)),
    );
    fc.assert(
      fc.property(fc.array(cause, { maxLength: 5 }), (causes) => {
        const expected = causes.length > 0 && causes.every((c) => c instanceof ConflictError || c instanceof LostRaceError);
        const decision = errorPolicy(new ReconcileError('pass', { causes, event }));
        expect(decision.lostRace).toBe(expected);
        // A lost race never records an Event; a failure always records the one it names.
        expect(decision.event).toEqual(expected ? undefined : event);
        expect(decision.retry).toBe('backoff');
      }),
    );
  });
});
