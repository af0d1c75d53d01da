// A hand-driven EventSource for controller tests.
import type { EventSource, ResourceEventHandler } from '../../src/informer/types.ts';
import type { DeepReadonly } from '../../src/util/deep-readonly.ts';

export class FakeSource<T> implements EventSource<T> {
  synced = true;
  private readonly handlers = new Set<ResourceEventHandler<T>>();

  addEventHandler(handler: ResourceEventHandler<T>): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  add(obj: T): void {
    for (const h of this.handlers) h.onAdd?.(obj as DeepReadonly<T>, false);
  }

  update(oldObj: T, newObj: T): void {
    for (const h of this.handlers) h.onUpdate?.(oldObj as DeepReadonly<T>, newObj as DeepReadonly<T>);
  }

  delete(obj: T): void {
    for (const h of this.handlers) h.onDelete?.(obj as DeepReadonly<T>, false);
  }

  handlerCount(): number {
    return this.handlers.size;
  }
}
