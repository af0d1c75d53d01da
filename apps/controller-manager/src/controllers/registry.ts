// The controllers the manager can run. Each is created on every replica (so its informers warm
// up) and started only on the leader. Registering one is one entry in CONTROLLERS.
import type { Logger, Manager } from '@cloneset-suite/kube-runtime';
import type { FeatureGates } from '../config/feature-gates.ts';
import type { ManagerConfig } from '../config/flags.ts';
import type { PolicyRule } from '../rbac.ts';
import { cloneSetRegistration } from './cloneset.ts';
import { transitionRuleRegistration } from './transitionrule.ts';

/**
 * A running controller. kube-runtime's Controller fits as it is: start(signal) resolves once its
 * in-flight reconciles have returned; stop() stops handing out work.
 */
export interface ManagedController {
  readonly name: string;
  start(signal: AbortSignal): Promise<void>;
  stop(): void;
}

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
}

export interface ControllerRegistration {
  name: string;
  /** Whether `--controllers=*` includes it. */
  enabledByDefault: boolean;
  /** The API calls it makes (cluster-wide); deploy/ grants them. */
  permissions: PolicyRule[];
  create(deps: ControllerDeps): ManagedController;
}

export const CONTROLLERS: readonly ControllerRegistration[] = [cloneSetRegistration, transitionRuleRegistration];

export function controllerNames(registry: readonly ControllerRegistration[] = CONTROLLERS): string[] {
  return registry.map((c) => c.name);
}
