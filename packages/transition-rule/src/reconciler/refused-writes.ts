// Writes the apiserver refused for a reason a retry cannot fix (400, 413, 422, or etcd's "request
// is too large"), remembered by target and content: the same content is not sent again until it
// changes or REFUSED_RETRY_MS has passed (the cause, say an admission policy, may be lifted), so a
// refused status or annotation costs one write and one Event, not a retry loop.
import { ApiError } from '@cloneset-suite/kube-runtime';

export const REFUSED_RETRY_MS = 5 * 60_000;

export function isRefusal(err: unknown): err is ApiError {
  if (!(err instanceof ApiError)) return false;
  if (err.code === 400 || err.code === 413 || err.code === 422) return true;
  return err.code === 500 && /too large/i.test(err.message);
}

export class RefusedWrites {
  private readonly refused = new Map<string, { content: string; atMs: number }>();

  /** Whether `content` for `target` was refused less than REFUSED_RETRY_MS ago. */
  isRefused(target: string, content: string, nowMs: number): boolean {
    const r = this.refused.get(target);
    return r !== undefined && r.content === content && nowMs - r.atMs < REFUSED_RETRY_MS;
  }

  refuse(target: string, content: string, nowMs: number): void {
    this.refused.set(target, { content, atMs: nowMs });
  }

  accepted(target: string): void {
    this.refused.delete(target);
  }

  /** Forgets every target under a PodTransitionRule's key (it was deleted). */
  forget(ptrKey: string): void {
    for (const target of this.refused.keys()) if (target === ptrKey || target.startsWith(`${ptrKey}/`)) this.refused.delete(target);
  }
}
