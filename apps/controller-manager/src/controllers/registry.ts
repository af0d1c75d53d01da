// The controllers the manager can run: one entry per controller in CONTROLLERS. To add one:
//  1. its package exports `createXController(manager, options)`, which builds its informers and
//     registers it with `manager.addController(...)` (leader-only: the Manager runs it while
//     this replica leads, after the caches synced, and drains it on shutdown);
//  2. a file here (see cloneset.ts) exports its ControllerRegistration: name (for --controllers
//     and --max-concurrent-reconciles), enabledByDefault, the exact API permissions it uses
//     (deploy/ grants them; the process test runs with only those), and create(deps);
//  3. the registration is appended to CONTROLLERS.
// Informers are created on every replica, so a standby keeps warm caches.
import type { Registry } from 'prom-client';
import type { Logger, Manager } from '@cloneset-suite/kube-runtime';
import type { FeatureGates } from '../config/feature-gates.ts';
import type { ManagerConfig } from '../config/flags.ts';
import type { PolicyRule } from '../rbac.ts';
import { cloneSetRegistration } from './cloneset.ts';
import { podOpsLifecycleRegistration } from './podopslifecycle.ts';
import { trafficCooperationRegistration } from './traffic-cooperation.ts';
import { transitionRuleRegistration } from './transitionrule.ts';

export interface ControllerDeps {
  manager: Manager;
  config: ManagerConfig;
  /** Namespace to watch; undefined for all. */
  namespace: string | undefined;
  maxConcurrentReconciles: number;
  featureGates: FeatureGates;
  /** This process's identity (also the leader-election identity), for Events. */
  identity: string;
  logger: Logger;
  /** The registry /metrics serves, for a controller's own series. */
  registry: Registry;
  /** Every controller this process runs (after --controllers), for controllers that cooperate. */
  enabledControllers: readonly string[];
}

export interface ControllerRegistration {
  name: string;
  /** Whether `--controllers=*` includes it. */
  enabledByDefault: boolean;
  /** The API calls it makes (cluster-wide); deploy/ grants them. */
  permissions: PolicyRule[];
  /** Builds the controller and registers it with deps.manager; whatever it returns is ignored. */
  create(deps: ControllerDeps): void;
}

export const CONTROLLERS: readonly ControllerRegistration[] = [cloneSetRegistration, transitionRuleRegistration, podOpsLifecycleRegistration, trafficCooperationRegistration];

export function controllerNames(registry: readonly ControllerRegistration[] = CONTROLLERS): string[] {
  return registry.map((c) => c.name);
}
