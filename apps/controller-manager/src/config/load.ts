// Resolves the configuration from, lowest precedence first: defaults, the YAML config file
// (--config), CONTROLLER_MANAGER_* environment variables, command-line flags. Any bad name or
// value throws a ConfigError naming the flag and where the value came from.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { ringMembershipError } from '@cloneset-suite/kube-runtime';
import { parse as parseYaml } from 'yaml';
import { FLAGS, defaultConfig, envName, type FlagContext, type FlagSpec, type ManagerConfig } from './flags.ts';
import type { RawValue } from './values.ts';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface LoadOptions extends FlagContext {
  argv: readonly string[];
  env?: NodeJS.ProcessEnv;
  readFile?: (path: string) => string;
  /** The in-cluster namespace, when running in a pod (read from the service-account mount). */
  inClusterNamespace?: () => string | undefined;
  /** The host name, the shard name's last fallback (os.hostname by default). */
  hostname?: () => string;
}

export type LoadResult = { kind: 'help' } | { kind: 'config'; config: ManagerConfig };

const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
/** One webhook call of a PodTransitionRule holds one of the namespace's few call slots this long at most. */
const MAX_TRANSITION_RULE_WEBHOOK_TIMEOUT_MS = 5 * 60_000;

function defaultInClusterNamespace(): string | undefined {
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

const byName = new Map(FLAGS.map((f) => [f.name, f]));

interface Setting {
  spec: FlagSpec;
  raw: RawValue;
  source: string;
}

/** Splits argv into settings; --help anywhere wins. */
function parseArgv(argv: readonly string[]): Setting[] | 'help' {
  const out: Setting[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h' || arg === '-help') return 'help';
    const m = /^--?([a-z0-9-]+)(?:=([\s\S]*))?$/.exec(arg);
    if (!m) throw new ConfigError(`unexpected argument "${arg}": the controller-manager takes only flags (see --help)`);
    const name = m[1] ?? '';
    const spec = byName.get(name);
    if (!spec) throw new ConfigError(`unknown flag --${name} (see --help)`);
    let value = m[2];
    if (value === undefined) {
      if (spec.boolean) value = 'true';
      else {
        const next = argv[i + 1];
        if (next === undefined) throw new ConfigError(`flag --${name} needs a value`);
        value = next;
        i++;
      }
    }
    out.push({ spec, raw: value, source: `flag --${name}` });
  }
  return out;
}

function fromEnv(env: NodeJS.ProcessEnv): Setting[] {
  const out: Setting[] = [];
  for (const spec of FLAGS) {
    const value = env[envName(spec.name)];
    if (value !== undefined) out.push({ spec, raw: value, source: `environment variable ${envName(spec.name)}` });
  }
  return out;
}

function fromFile(path: string, readFile: (p: string) => string): Setting[] {
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    throw new ConfigError(`cannot read config file ${path}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`config file ${path} is not valid YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return [];
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigError(`config file ${path} must be a YAML map of flag names to values`);
  return Object.entries(doc as Record<string, unknown>).map(([key, raw]) => {
    const spec = byName.get(key);
    if (!spec || spec.name === 'config') {
      throw new ConfigError(`config file ${path}: unknown key "${key}" (keys are flag names without dashes, see --help)`);
    }
    return { spec, raw: (raw ?? null) as RawValue, source: `key "${key}" of config file ${path}` };
  });
}

function apply(config: ManagerConfig, settings: readonly Setting[], ctx: FlagContext): void {
  for (const { spec, raw, source } of settings) {
    let value: unknown;
    try {
      value = spec.parse(raw, ctx);
    } catch (err) {
      const shown = JSON.stringify(raw) ?? 'null';
      throw new ConfigError(`invalid value ${shown} for --${spec.name} (${source}): ${(err as Error).message}`);
    }
    (config as unknown as Record<string, unknown>)[spec.key] = value;
  }
}

function checkConsistency(c: ManagerConfig): void {
  // A shard's own Lease is timed by the same durations as the leader Lease.
  if (c.leaderElect || c.controllerRing) {
    if (c.leaderElectionRetryPeriodMs <= 0) throw new ConfigError('--leader-election-retry-period must be greater than 0');
    if (c.leaderElectionLeaseDurationMs <= c.leaderElectionRenewDeadlineMs) {
      throw new ConfigError('--leader-election-lease-duration must be greater than --leader-election-renew-deadline');
    }
    if (c.leaderElectionRenewDeadlineMs <= 1.2 * c.leaderElectionRetryPeriodMs) {
      throw new ConfigError('--leader-election-renew-deadline must be greater than 1.2 × --leader-election-retry-period');
    }
  }
  if (c.webhookRequestTimeoutMs <= 0 || c.webhookRequestTimeoutMs > 30_000) {
    throw new ConfigError('--webhook-request-timeout must be between 1ms and 30s (the apiserver waits at most 30s)');
  }
  if (c.webhookCertDir === undefined && c.webhookCertValidityMs < 60 * 60_000) {
    throw new ConfigError('--webhook-cert-validity must be at least 1h');
  }
  if (c.transitionRuleWebhookTimeoutMs <= 0 || c.transitionRuleWebhookTimeoutMs > MAX_TRANSITION_RULE_WEBHOOK_TIMEOUT_MS) {
    throw new ConfigError('--transition-rule-webhook-timeout must be between 1ms and 5m');
  }
  if (c.gracefulShutdownTimeoutMs <= 0) throw new ConfigError('--graceful-shutdown-timeout must be greater than 0');
  if (c.inPlaceResizeDeferredTimeoutMs <= 0) throw new ConfigError('--inplace-resize-deferred-timeout must be greater than 0');
}

export function loadConfig(options: LoadOptions): LoadResult {
  const env = options.env ?? process.env;
  const readFile = options.readFile ?? ((p: string) => readFileSync(p, 'utf8'));
  const ctx: FlagContext = { knownControllers: options.knownControllers };
  const cli = parseArgv(options.argv);
  if (cli === 'help') return { kind: 'help' };
  const envSettings = fromEnv(env);

  // The config file path itself comes from the flag or the environment.
  const pathSetting = [...cli].reverse().find((s) => s.spec.name === 'config') ?? envSettings.find((s) => s.spec.name === 'config');
  const config = defaultConfig();
  if (pathSetting) apply(config, [pathSetting], ctx);
  const file = config.config ? fromFile(config.config, readFile) : [];
  apply(config, file, ctx);
  apply(config, envSettings, ctx);
  apply(config, cli, ctx);

  const inCluster = (options.inClusterNamespace ?? defaultInClusterNamespace)();
  config.leaderElectionNamespace ||= env.POD_NAMESPACE || inCluster || 'default';
  config.webhookServiceNamespace ||= config.leaderElectionNamespace;
  if (config.controllerRing) {
    config.shardName ||= (env.POD_NAME || (options.hostname ?? hostname)()).toLowerCase();
    const err = ringMembershipError({ ring: config.controllerRing, shard: config.shardName });
    if (err) throw new ConfigError(`${err}; set --shard-name`);
  }
  checkConsistency(config);
  return { kind: 'config', config };
}
