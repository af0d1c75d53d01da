// The controllers the manager can run: one entry per controller in CONTROLLERS. To add one:
//  1. its package exports `createXController(manager, options)`, which declares it with
//     `manager.controller(name)...complete(..)` (kube-runtime's builder: leader-only, run after
//     the caches synced, drained on shutdown);
//  2. a file here (see cloneset.ts) exports its ControllerRegistration (registration.ts);
//  3. the registration is appended to CONTROLLERS.
// Informers are created on every replica, so a standby keeps warm caches.
import { cloneSetRegistration } from './cloneset.ts';
import { podOpsLifecycleRegistration } from './podopslifecycle.ts';
import type { ControllerRegistration } from './registration.ts';
import { trafficCooperationRegistration } from './traffic-cooperation.ts';
import { transitionRuleRegistration } from './transitionrule.ts';

export const CONTROLLERS: readonly ControllerRegistration[] = [cloneSetRegistration, transitionRuleRegistration, podOpsLifecycleRegistration, trafficCooperationRegistration];

export function controllerNames(registry: readonly ControllerRegistration[] = CONTROLLERS): string[] {
  return registry.map((c) => c.name);
}
