// A hand-driven EventSource for controller tests, with the cache its events keep (by key).
import type { KubeObject } from '../../src/client/types.ts';
import { keyOf } from '../../src/controller/handlers.ts';
import type { EventSource, ResourceEventHandler } from '../../src/informer/types.ts';
import type { DeepReadonly } from '../../src/util/deep-readonly.ts';

export class FakeSource<T extends KubeObject> implements EventSource<T> {
  synced = true;
  private readonly handlers = new Set<ResourceEventHandler<T>>();
  private readonly cache = new Map<string, DeepReadonly<T>>();

  addEventHandler(handler: ResourceEventHandler<T>): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  getByKey(key: string): DeepReadonly<T> | undefined {
    return this.cache.get(key);
  }

  /** Puts objects in the cache without an event (as if listed before the handlers were added). */
  seed(...objs: T[]): void {
    for (const o of objs) this.cache.set(keyOf(o), o as DeepReadonly<T>);
  }

  add(obj: T): void {
    this.seed(obj);
    for (const h of this.handlers) h.onAdd?.(obj as DeepReadonly<T>, false);
  }

  update(oldObj: T, newObj: T): void {
    this.seed(newObj);
    for (const h of this.handlers) h.onUpdate?.(oldObj as DeepReadonly<T>, newObj as DeepReadonly<T>);
  }

  delete(obj: T): void {
    this.cache.delete(keyOf(obj));
    for (const h of this.handlers) h.onDelete?.(obj as DeepReadonly<T>, false);
  }

  handlerCount(): number {
    return this.handlers.size;
  }
}
