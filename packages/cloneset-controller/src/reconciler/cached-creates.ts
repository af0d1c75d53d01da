// A pending pod create is met once the cache shows a pod of that name, whoever owns it. The
// informer's add handler meets creates of our own pods; a create answered AlreadyExists may be
// waiting for a pod someone else made under that name (or one the cache listed before the
// expectation was set), which that handler never reports. Without this, such a name would hold
// the CloneSet for the whole expectation window.
import type { ScaleExpectations } from '@cloneset-suite/kube-runtime';

export function observeCachedCreates(expectations: ScaleExpectations, key: string, inCache: (podName: string) => boolean): void {
  for (const name of expectations.pending(key).create) {
    if (inCache(name)) expectations.observe(key, 'create', name);
  }
}
