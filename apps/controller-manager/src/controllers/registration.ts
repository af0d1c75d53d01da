// What a controller the manager can run declares about itself (registry.ts lists them): its name
// (for --controllers and --max-concurrent-reconciles), whether `--controllers=*` includes it, the
// exact API permissions it uses (deploy/ grants them; the process test runs with only those), and
// how to create it from what the manager hands every controller.
import type { Registry } from 'prom-client';
import type { Logger, Manager } from '@cloneset-suite/kube-runtime';
import type { FeatureGates } from '../config/feature-gates.ts';
import type { ManagerConfig } from '../config/flags.ts';
import type { PolicyRule } from '../rbac.ts';

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
  /** Declares the controller with deps.manager (manager.controller(..)...complete(..)), which runs it while leading. */
  create(deps: ControllerDeps): void;
}
