import { describe, expect, it, vi } from 'vitest';
import type { ResourceEventHandler } from '@cloneset-suite/kube-runtime';
import { specEvents } from '../../src/reconciler/spec-events.ts';
import type { PodTransitionRuleObject } from '../../src/reconciler/resources.ts';

describe('specEvents', () => {
  it('passes spec, deletion and finalizer changes and resyncs; drops status-only updates', () => {
    let inner: ResourceEventHandler<PodTransitionRuleObject> | undefined;
    const source = specEvents({ hasSynced: () => true, addEventHandler: (h) => ((inner = h), () => undefined) });
    const onUpdate = vi.fn();
    source.addEventHandler({ onUpdate });
    const base = { metadata: { name: 'r', generation: 1, finalizers: ['f'] }, spec: { selector: {} }, status: { targets: ['a'] } } as PodTransitionRuleObject;
    const update = (b: PodTransitionRuleObject, a: PodTransitionRuleObject = base) => inner!.onUpdate!(a, b);
    update({ ...base, status: { targets: ['a', 'b'] } });
    expect(onUpdate).not.toHaveBeenCalled();
    update({ ...base, metadata: { ...base.metadata, generation: 2 } });
    update({ ...base, metadata: { ...base.metadata, deletionTimestamp: 'now' } });
    update({ ...base, metadata: { ...base.metadata, finalizers: [] } });
    update(base, base);
    expect(onUpdate).toHaveBeenCalledTimes(4);
  });
});
