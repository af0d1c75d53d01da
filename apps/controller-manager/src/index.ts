// Public face of the controller-manager app: what the e2e suite, the bench and the dev start
// script use (configuration, the webhooks and their configurations, RBAC, local installs).
export { loadConfig } from './config/load.ts';
export { defaultConfig } from './config/flags.ts';
export { FEATURE_GATE_DEFAULTS } from './config/feature-gates.ts';
export { admissionWebhooks } from './webhooks/index.ts';
export { NO_POD_CACHE } from './webhooks/pod-cache.ts';
export { webhookConfigurations } from './webhooks/configurations.ts';
export { rbacObjects } from './deploy/render.ts';
export type { PolicyRule } from './rbac.ts';
export { CLONESET_CRD_NAME, handBackCrdConversion, installCrds, installScopedWebhooks, installWebhookConfigurations, readCrdConversion, urlModeConfigurations } from './local-install.ts';
export { CLONESET_CONVERSION_PATH } from './webhooks/cloneset-conversion.ts';
export { startTcpFront } from './tcp-front.ts';
export type { TcpFront } from './tcp-front.ts';
export { MANAGER_MAIN, localManagerArgs } from './local-manager-args.ts';
