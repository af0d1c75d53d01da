// Every setting of the controller-manager, once: its flag name (also the YAML config key and,
// upper-cased with a prefix, the environment variable), its help text, default and parser.
import { parseControllerSelection, parseMaxConcurrentReconciles, type ConcurrencyConfig } from './controllers-flag.ts';
import { ringMembershipError } from '@cloneset-suite/kube-runtime';
import { ADDRESS_CLASSES, PRIVATE_RANGES } from '@cloneset-suite/transition-rule';
import { FEATURE_GATE_DEFAULTS, FEATURE_GATE_NAMES, parseFeatureGates, type FeatureGates } from './feature-gates.ts';
import {
  parseBindAddress,
  parseBool,
  parseByteSize,
  parseDuration,
  parseEnum,
  parseHttpsUrl,
  parseInteger,
  parseList,
  parseNamespace,
  parseObjectName,
  parsePositiveNumber,
  parseString,
  parseUrlPrefix,
  parseAddressClass,
  parseCidrItem,
  ValueError,
  type BindAddress,
  type RawValue,
} from './values.ts';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type ManagerLogLevel = (typeof LOG_LEVELS)[number];

export interface ManagerConfig {
  config: string | undefined;
  kubeconfig: string | undefined;
  /** '' watches every namespace. */
  namespace: string;
  leaderElect: boolean;
  leaderElectionId: string;
  /** '' until resolved by loadConfig (in-cluster namespace, else "default"). */
  leaderElectionNamespace: string;
  leaderElectionLeaseDurationMs: number;
  leaderElectionRenewDeadlineMs: number;
  leaderElectionRetryPeriodMs: number;
  /** '' runs one leader-elected manager; a name runs this manager as a shard of that ControllerRing. */
  controllerRing: string;
  /** The shard's Lease name and holder; '' until resolved by loadConfig in ring mode ($POD_NAME, else the host name). */
  shardName: string;
  metricsBindAddress: BindAddress | undefined;
  healthProbeBindAddress: BindAddress | undefined;
  /** 0 disables the webhook server. */
  webhookPort: number;
  webhookHost: string;
  webhookCertDir: string | undefined;
  webhookClientCaFile: string | undefined;
  webhookUrlBase: string | undefined;
  webhookServiceName: string;
  /** '' until resolved (the leader-election namespace). */
  webhookServiceNamespace: string;
  webhookSecretName: string;
  webhookConfigurationName: string;
  webhookCertValidityMs: number;
  webhookRequestTimeoutMs: number;
  webhookMaxBodyBytes: number;
  webhookConversionMaxBodyBytes: number;
  webhookIdleTimeoutMs: number;
  webhookMaxConnections: number;
  webhookMaxRequestsInFlight: number;
  webhookConversionMaxRequestsInFlight: number;
  featureGates: FeatureGates;
  maxConcurrentReconciles: ConcurrencyConfig;
  reconcileTimeoutMs: number;
  kubeApiQps: number;
  kubeApiBurst: number;
  kubeApiRequestTimeoutMs: number;
  /** Serve CloneSet apps.kruise.io/v1beta1 (the opt-in); it stays served while stored without it. */
  serveV1beta1: boolean;
  logLevel: ManagerLogLevel;
  controllers: string[];
  transitionRuleWebhookAllowedPrefixes: string[];
  transitionRuleWebhookAllowLinkLocal: boolean;
  transitionRuleWebhookAllowAddresses: string[];
  transitionRuleWebhookPrivateCidrs: string[];
  transitionRuleWebhookTimeoutMs: number;
  transitionRuleWebhookMaxConcurrentCalls: number;
  transitionRuleWebhookMaxConcurrentCallsPerNamespace: number;
  transitionRuleKubeApiQps: number;
  transitionRuleKubeApiBurst: number;
  inPlaceResizeDeferredTimeoutMs: number;
  gracefulShutdownTimeoutMs: number;
}

export interface FlagContext {
  /** Names of the registered controllers (for --controllers and --max-concurrent-reconciles). */
  knownControllers: readonly string[];
}

export interface FlagSpec {
  /** Flag name without dashes; also the config-file key. */
  name: string;
  key: keyof ManagerConfig;
  /** Shown in --help after the flag, e.g. "duration". */
  type: string;
  help: string;
  /** Default as shown in --help ('' shows nothing). */
  defaultText: string;
  boolean?: boolean;
  parse: (raw: RawValue, ctx: FlagContext) => unknown;
}

export const ENV_PREFIX = 'CONTROLLER_MANAGER_';

export function envName(flag: string): string {
  return ENV_PREFIX + flag.toUpperCase().replace(/-/g, '_');
}

const optionalString = (raw: RawValue): string | undefined => parseString(raw) || undefined;
const portBounds = { min: 0, max: 65_535 };
/** A timeout that must exist: Node reads 0 as "never". */
const parsePositiveDuration = (raw: RawValue): number => {
  const ms = parseDuration(raw);
  if (ms < 1_000) throw new ValueError('must be at least 1s');
  return ms;
};

const parseRingName = (raw: RawValue): string => {
  const ring = parseString(raw);
  if (ring === '') return ring;
  const err = ringMembershipError({ ring, shard: 'x' });
  if (err) throw new ValueError('must be a DNS label of at most 63 characters (it becomes part of a label key)');
  return ring;
};
const parseShardName = (raw: RawValue): string => {
  const shard = parseString(raw);
  if (shard !== '' && ringMembershipError({ ring: 'x', shard })) throw new ValueError('must be a lowercase name of at most 63 characters (a Lease name and a label value)');
  return shard;
};

export const FLAGS: readonly FlagSpec[] = [
  { name: 'config', key: 'config', type: 'path', defaultText: '', help: 'YAML file with settings keyed by flag name (flags and environment variables override it).', parse: optionalString },
  { name: 'kubeconfig', key: 'kubeconfig', type: 'path', defaultText: '', help: 'Kubeconfig to use. Without it: $KUBECONFIG, ~/.kube/config, then the in-cluster service account.', parse: optionalString },
  { name: 'namespace', key: 'namespace', type: 'string', defaultText: '', help: 'Watch only this namespace. Empty: every namespace.', parse: (r) => parseNamespace(r, { allowEmpty: true }) },
  { name: 'leader-elect', key: 'leaderElect', type: 'bool', defaultText: 'true', boolean: true, help: 'Run controllers only while holding the leader Lease, so several replicas can run. Webhooks and probes are served by every replica.', parse: parseBool },
  { name: 'leader-election-id', key: 'leaderElectionId', type: 'string', defaultText: 'cloneset-suite-controller-manager', help: 'Name of the leader-election Lease.', parse: parseObjectName },
  { name: 'leader-election-namespace', key: 'leaderElectionNamespace', type: 'string', defaultText: 'the pod namespace, else "default"', help: 'Namespace of the leader-election Lease.', parse: (r) => parseNamespace(r, { allowEmpty: true }) },
  { name: 'leader-election-lease-duration', key: 'leaderElectionLeaseDurationMs', type: 'duration', defaultText: '15s', help: 'How long a standby waits after the last renewal before taking the lease over.', parse: parseDuration },
  { name: 'leader-election-renew-deadline', key: 'leaderElectionRenewDeadlineMs', type: 'duration', defaultText: '10s', help: 'How long the leader keeps trying to renew before it stops acting as leader.', parse: parseDuration },
  { name: 'leader-election-retry-period', key: 'leaderElectionRetryPeriodMs', type: 'duration', defaultText: '2s', help: 'Interval between attempts to acquire or renew the lease.', parse: parseDuration },
  { name: 'controller-ring', key: 'controllerRing', type: 'string', defaultText: '', help: 'Run as a shard of this ControllerRing (sharding.timebertt.dev, kubernetes-controller-sharding): keep a Lease of its own named after the shard instead of leader election, and watch and reconcile only the CloneSets (with their pods, PVCs and ControllerRevisions) and PodTransitionRules labelled with this shard. Empty: one leader-elected manager.', parse: parseRingName },
  { name: 'shard-name', key: 'shardName', type: 'string', defaultText: '$POD_NAME, else the host name', help: 'With --controller-ring: this shard\'s name, the name and holder of its Lease (in --leader-election-namespace, timed by the --leader-election-* durations) and the value of the shard label on its objects.', parse: parseShardName },
  { name: 'metrics-bind-address', key: 'metricsBindAddress', type: 'address', defaultText: ':8080', help: 'Address of the Prometheus /metrics endpoint; 0 disables it.', parse: parseBindAddress },
  { name: 'health-probe-bind-address', key: 'healthProbeBindAddress', type: 'address', defaultText: ':8081', help: 'Address of /healthz and /readyz; 0 disables them.', parse: parseBindAddress },
  { name: 'webhook-port', key: 'webhookPort', type: 'int', defaultText: '9443', help: 'Port of the admission webhook server (TLS); 0 disables the webhooks.', parse: (r) => parseInteger(r, portBounds) },
  { name: 'webhook-host', key: 'webhookHost', type: 'string', defaultText: '', help: 'Address the webhook server listens on. Empty: every interface.', parse: parseString },
  { name: 'webhook-cert-dir', key: 'webhookCertDir', type: 'path', defaultText: '', help: 'Directory holding tls.crt and tls.key (e.g. from cert-manager); reloaded when they change. Without it, certificates are self-managed: a CA and serving certificate are generated, kept in a Secret, injected as caBundle into the webhook configurations and rotated before expiry.', parse: optionalString },
  { name: 'webhook-client-ca-file', key: 'webhookClientCaFile', type: 'path', defaultText: '', help: 'PEM CA bundle (read at start): the webhook server asks every client for a certificate and answers admission requests only from one this CA verifies (401 otherwise), e.g. the certificate kube-apiserver presents through its --admission-control-config-file. ConversionReviews are not checked: kube-apiserver presents no client certificate to CRD conversion webhooks. Empty: no client certificate is asked for (many managed control planes present none).', parse: optionalString },
  { name: 'webhook-url-base', key: 'webhookUrlBase', type: 'url', defaultText: '', help: 'URL mode (local clusters): the apiserver calls <url-base>/<path> (e.g. https://127.0.0.1:9443) instead of the webhook Service; the serving certificate names that host.', parse: parseHttpsUrl },
  { name: 'webhook-service-name', key: 'webhookServiceName', type: 'string', defaultText: 'cloneset-suite-webhook', help: 'Service in front of the webhook server (service mode): the serving certificate names it.', parse: parseObjectName },
  { name: 'webhook-service-namespace', key: 'webhookServiceNamespace', type: 'string', defaultText: 'the leader-election namespace', help: 'Namespace of the webhook Service.', parse: (r) => parseNamespace(r, { allowEmpty: true }) },
  { name: 'webhook-secret-name', key: 'webhookSecretName', type: 'string', defaultText: 'cloneset-suite-webhook-certs', help: 'Secret (in the webhook Service namespace) holding the self-managed CA and serving certificate.', parse: parseObjectName },
  { name: 'webhook-configuration-name', key: 'webhookConfigurationName', type: 'string', defaultText: 'cloneset-suite', help: 'Name of the Mutating- and ValidatingWebhookConfiguration whose caBundle is kept current (self-managed certificates).', parse: parseObjectName },
  { name: 'webhook-cert-validity', key: 'webhookCertValidityMs', type: 'duration', defaultText: '8760h', help: 'Lifetime of a self-managed serving certificate; it is renewed when a third of it remains (the CA lives ten times longer).', parse: parseDuration },
  { name: 'webhook-request-timeout', key: 'webhookRequestTimeoutMs', type: 'duration', defaultText: '8s', help: 'Time limit of one admission request; keep it below the configurations\' timeoutSeconds.', parse: parseDuration },
  { name: 'webhook-max-body-size', key: 'webhookMaxBodyBytes', type: 'bytes', defaultText: '6Mi', help: 'Largest AdmissionReview accepted.', parse: parseByteSize },
  { name: 'webhook-conversion-max-body-size', key: 'webhookConversionMaxBodyBytes', type: 'bytes', defaultText: '10Mi', help: 'Largest ConversionReview accepted. The apiserver converts a whole page of a list in one: a page of 500 CloneSets of 14 KiB each (a production service as served, managedFields included) is 6.6 MiB.', parse: parseByteSize },
  { name: 'webhook-idle-timeout', key: 'webhookIdleTimeoutMs', type: 'duration', defaultText: '60s', help: 'A webhook connection with nothing read or written for this long is closed (before, between and during requests).', parse: parsePositiveDuration },
  { name: 'webhook-max-connections', key: 'webhookMaxConnections', type: 'int', defaultText: '512', help: 'Webhook connections open at once; past it new connections are closed.', parse: (r) => parseInteger(r, { min: 1, max: 1_000_000 }) },
  { name: 'webhook-max-requests-in-flight', key: 'webhookMaxRequestsInFlight', type: 'int', defaultText: '32', help: 'Webhook requests (admission and conversion) served at once; past it a request is answered 429 before its body is read.', parse: (r) => parseInteger(r, { min: 1, max: 100_000 }) },
  { name: 'webhook-conversion-max-requests-in-flight', key: 'webhookConversionMaxRequestsInFlight', type: 'int', defaultText: '2', help: 'Of those, ConversionReviews served at once (each buffers up to --webhook-conversion-max-body-size); past it 429.', parse: (r) => parseInteger(r, { min: 1, max: 100_000 }) },
  { name: 'feature-gates', key: 'featureGates', type: 'mapStringBool', defaultText: '', help: `Feature gates as A=true,B=false. Known: ${FEATURE_GATE_NAMES.map((n) => `${n}=${FEATURE_GATE_DEFAULTS[n]}`).join(', ')}.`, parse: parseFeatureGates },
  { name: 'max-concurrent-reconciles', key: 'maxConcurrentReconciles', type: 'string', defaultText: '3', help: 'Reconciles run at once per controller: N for every controller, name=N for one (e.g. 2,cloneset=8). Several, so one slow object cannot stall the others.', parse: (r, ctx) => parseMaxConcurrentReconciles(r, ctx.knownControllers) },
  { name: 'reconcile-timeout', key: 'reconcileTimeoutMs', type: 'duration', defaultText: '60s', help: 'Deadline of one reconcile: its API calls are cancelled and the object is retried with backoff. 0: none.', parse: parseDuration },
  { name: 'kube-api-qps', key: 'kubeApiQps', type: 'float', defaultText: '50', help: 'Sustained requests per second to the apiserver.', parse: parsePositiveNumber },
  { name: 'kube-api-burst', key: 'kubeApiBurst', type: 'int', defaultText: '100', help: 'Burst of requests to the apiserver above the QPS.', parse: (r) => parseInteger(r, { min: 1, max: 100_000 }) },
  { name: 'kube-api-request-timeout', key: 'kubeApiRequestTimeoutMs', type: 'duration', defaultText: '60s', help: 'Longest wait for the apiserver to answer one request (for a watch, its response headers).', parse: parseDuration },
  { name: 'serve-v1beta1', key: 'serveV1beta1', type: 'bool', defaultText: 'false', boolean: true, help: 'Serve CloneSet apps.kruise.io/v1beta1 beside v1alpha1 (OpenKruise\'s next version), converted by this manager: kubectl\'s default version becomes v1beta1 and reads through it depend on the conversion webhook. Off: v1alpha1 only, as released OpenKruise; v1beta1 stays served while the CRD\'s status.storedVersions lists it.', parse: parseBool },
  { name: 'log-level', key: 'logLevel', type: 'string', defaultText: 'info', help: `Log level: ${LOG_LEVELS.join(', ')}. Logs are JSON lines on stdout.`, parse: (r) => parseEnum(r, LOG_LEVELS) },
  { name: 'controllers', key: 'controllers', type: 'strings', defaultText: '*', help: 'Controllers to run: * for the default set, foo to enable foo, -foo to disable foo (e.g. *,-foo).', parse: (r, ctx) => parseControllerSelection(r, ctx.knownControllers) },
  { name: 'transition-rule-webhook-allowed-prefixes', key: 'transitionRuleWebhookAllowedPrefixes', type: 'strings', defaultText: '', help: 'Origins PodTransitionRule webhooks may call (comma-separated scheme://host[:port], optionally with a path the URLs must stay under). A URL is compared on its parsed scheme, host and port, never as text. Empty: any URL. Rules naming another URL (url or poll.url) are refused at admission.', parse: (r) => parseList(r).map(parseUrlPrefix) },
  { name: 'transition-rule-webhook-allow-link-local', key: 'transitionRuleWebhookAllowLinkLocal', type: 'bool', defaultText: 'false', boolean: true, help: 'Let PodTransitionRule webhooks call link-local addresses and AWS\'s IPv6 metadata address (169.254.0.0/16, fe80::/10, fd00:ec2::254); the same as listing link-local in --transition-rule-webhook-allow-addresses.', parse: parseBool },
  { name: 'transition-rule-webhook-allow-addresses', key: 'transitionRuleWebhookAllowAddresses', type: 'strings', defaultText: '', help: `Address classes PodTransitionRule webhooks may call, each refused unless listed: ${ADDRESS_CLASSES.join(', ')} (loopback 127.0.0.0/8 and ::1; unspecified 0.0.0.0/8 and ::; link-local 169.254.0.0/16, fe80::/10 and fd00:ec2::254; cloud-metadata 100.100.100.200 and 168.63.129.16; shared-address-space 100.64.0.0/10). IPv6 forms carrying an IPv4 address (::ffff:0:0/96, ::/96, 64:ff9b::/96) count as that address. A URL naming a refused address is refused at admission, a name resolving to one when dialled.`, parse: (r) => parseList(r).map(parseAddressClass) },
  { name: 'transition-rule-webhook-private-cidrs', key: 'transitionRuleWebhookPrivateCidrs', type: 'strings', defaultText: PRIVATE_RANGES.join(','), help: 'Private addresses (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7) PodTransitionRule webhooks may call: a private address outside these CIDRs is refused (e.g. 10.96.0.0/12 for the Service range only). Public addresses are not affected (see --transition-rule-webhook-allowed-prefixes).', parse: (r) => parseList(r).map(parseCidrItem) },
  { name: 'transition-rule-webhook-timeout', key: 'transitionRuleWebhookTimeoutMs', type: 'duration', defaultText: '30s', help: 'Time limit of one PodTransitionRule webhook or poll call (connect, answer and body).', parse: parseDuration },
  { name: 'transition-rule-webhook-max-concurrent-calls', key: 'transitionRuleWebhookMaxConcurrentCalls', type: 'int', defaultText: '16', help: 'PodTransitionRule webhook and poll calls running at once, all namespaces together.', parse: (r) => parseInteger(r, { min: 1, max: 10_000 }) },
  { name: 'transition-rule-webhook-max-concurrent-calls-per-namespace', key: 'transitionRuleWebhookMaxConcurrentCallsPerNamespace', type: 'int', defaultText: '4', help: 'Webhook and poll calls one namespace may have running at once. Namespaces that already have a call running may not take the last N slots (N is this value, at most the total minus N): those are kept for namespaces with nothing running.', parse: (r) => parseInteger(r, { min: 1, max: 10_000 }) },
  { name: 'transition-rule-kube-api-qps', key: 'transitionRuleKubeApiQps', type: 'float', defaultText: '20', help: 'Sustained requests per second of the PodTransitionRule controller\'s own apiserver client (status and pod annotation writes), apart from --kube-api-qps, so no namespace\'s rules can spend the CloneSet controller\'s budget.', parse: parsePositiveNumber },
  { name: 'transition-rule-kube-api-burst', key: 'transitionRuleKubeApiBurst', type: 'int', defaultText: '30', help: 'Burst of the PodTransitionRule controller\'s own apiserver client above its QPS.', parse: (r) => parseInteger(r, { min: 1, max: 100_000 }) },
  { name: 'inplace-resize-deferred-timeout', key: 'inPlaceResizeDeferredTimeoutMs', type: 'duration', defaultText: '5m', help: 'InPlaceWorkloadVerticalScaling: how long a CloneSet pod waits for a resize its node answers Deferred before it is re-created (InPlaceIfPossible).', parse: parseDuration },
  { name: 'graceful-shutdown-timeout', key: 'gracefulShutdownTimeoutMs', type: 'duration', defaultText: '25s', help: 'On SIGTERM/SIGINT, how long in-flight reconciles may take to finish before the lease is released and the process exits.', parse: parseDuration },
];

export function defaultConfig(): ManagerConfig {
  return {
    config: undefined,
    kubeconfig: undefined,
    namespace: '',
    leaderElect: true,
    leaderElectionId: 'cloneset-suite-controller-manager',
    leaderElectionNamespace: '',
    leaderElectionLeaseDurationMs: 15_000,
    leaderElectionRenewDeadlineMs: 10_000,
    leaderElectionRetryPeriodMs: 2_000,
    controllerRing: '',
    shardName: '',
    metricsBindAddress: { host: '', port: 8080 },
    healthProbeBindAddress: { host: '', port: 8081 },
    webhookPort: 9443,
    webhookHost: '',
    webhookCertDir: undefined,
    webhookClientCaFile: undefined,
    webhookUrlBase: undefined,
    webhookServiceName: 'cloneset-suite-webhook',
    webhookServiceNamespace: '',
    webhookSecretName: 'cloneset-suite-webhook-certs',
    webhookConfigurationName: 'cloneset-suite',
    webhookCertValidityMs: 8_760 * 3_600_000,
    webhookRequestTimeoutMs: 8_000,
    webhookMaxBodyBytes: 6 * 1024 * 1024,
    webhookConversionMaxBodyBytes: 10 * 1024 * 1024,
    webhookIdleTimeoutMs: 60_000,
    webhookMaxConnections: 512,
    webhookMaxRequestsInFlight: 32,
    webhookConversionMaxRequestsInFlight: 2,
    featureGates: { ...FEATURE_GATE_DEFAULTS },
    maxConcurrentReconciles: { default: 3, perController: {} },
    reconcileTimeoutMs: 60_000,
    kubeApiQps: 50,
    kubeApiBurst: 100,
    kubeApiRequestTimeoutMs: 60_000,
    serveV1beta1: false,
    logLevel: 'info',
    controllers: ['*'],
    transitionRuleWebhookAllowedPrefixes: [],
    transitionRuleWebhookAllowLinkLocal: false,
    transitionRuleWebhookAllowAddresses: [],
    transitionRuleWebhookPrivateCidrs: [...PRIVATE_RANGES],
    transitionRuleWebhookTimeoutMs: 30_000,
    transitionRuleWebhookMaxConcurrentCalls: 16,
    transitionRuleWebhookMaxConcurrentCallsPerNamespace: 4,
    transitionRuleKubeApiQps: 20,
    transitionRuleKubeApiBurst: 30,
    inPlaceResizeDeferredTimeoutMs: 300_000,
    gracefulShutdownTimeoutMs: 25_000,
  };
}
