// Public face of the controller-manager app (for the dev start script, e2e and tests).
export { startManager, webhookHosts } from './app.ts';
export type { RunningManager, StartOptions } from './app.ts';
export { loadConfig, ConfigError } from './config/load.ts';
export type { LoadOptions, LoadResult } from './config/load.ts';
export { FLAGS, defaultConfig, envName, ENV_PREFIX } from './config/flags.ts';
export type { ManagerConfig, FlagSpec } from './config/flags.ts';
export { helpText } from './config/help.ts';
export { FEATURE_GATE_DEFAULTS, parseFeatureGates } from './config/feature-gates.ts';
export type { FeatureGates, FeatureGateName } from './config/feature-gates.ts';
export { CONTROLLERS, controllerNames } from './controllers/registry.ts';
export type { ControllerRegistration, ControllerDeps } from './controllers/registry.ts';
export { admissionWebhooks } from './webhooks/index.ts';
export { NO_POD_CACHE } from './webhooks/pod-cache.ts';
export { webhookConfigurations } from './webhooks/configurations.ts';
export type { WebhookConfiguration, ClientTarget } from './webhooks/configurations.ts';
export type { AdmissionWebhook } from './webhooks/types.ts';
export { managerPermissions, flattenRules } from './rbac.ts';
export type { PolicyRule, Permissions } from './rbac.ts';
